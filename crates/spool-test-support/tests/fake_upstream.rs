//! The fake upstream speaks MCP and pages its tools. (Also makes `cargo test --workspace`
//! build the binary that the proxy's tests start.)

use rmcp::ServiceExt;

#[tokio::test]
async fn the_fake_upstream_pages_its_tools() {
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_fake-upstream"));
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 5);
    assert!(first.next_cursor.is_some());
    let all = client.list_all_tools().await.unwrap();
    assert_eq!(all.len(), 30);
    assert_eq!(
        spool_test_support::fake_upstream().unwrap_or_default(),
        std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-upstream"))
    );
}
