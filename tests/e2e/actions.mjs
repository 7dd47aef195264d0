// End to end: `spool ci-log` against a loopback server that plays GitHub's Actions API
// (`fake-actions`, built beside spool), whose answers are first checked against GitHub's
// published REST description (npm @octokit/openapi, api.github.com.json) with ajv.
// Usage: node actions.mjs PATH/TO/spool   (fake-actions is looked for beside it)
import { spawn, execFileSync } from "node:child_process";
import { readFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";

const require = createRequire(import.meta.url);
const Ajv = require("ajv");
const addFormats = require("ajv-formats");

const spool = process.argv[2];
const fake = join(dirname(spool), "fake-actions");
let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : `: ${String(detail).slice(0, 400)}`}`);
}

const spec = JSON.parse(
  readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.json"), "utf8"),
);
// OpenAPI 3.0 schemas: `nullable`, examples and vendor keys are not JSON Schema's own.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ components: spec.components }, "gh");
const schema = (ref) => ajv.getSchema(`gh#/components/schemas/${ref}`);
const jobsPage = ajv.compile({
  type: "object",
  required: ["total_count", "jobs"],
  properties: {
    total_count: { type: "integer" },
    jobs: { type: "array", items: { $ref: "gh#/components/schemas/job" } },
  },
});
function valid(name, validate, value) {
  const ok = validate(value);
  check(`${name} matches GitHub's description`, ok, JSON.stringify(validate.errors));
}

const server = spawn(fake, [], { stdio: ["ignore", "ignore", "pipe"] });
const base = await new Promise((resolve, reject) => {
  let seen = "";
  server.stderr.on("data", (d) => {
    seen += d;
    const m = seen.match(/fake actions at (http:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  server.on("exit", (code) => reject(new Error(`fake-actions exited ${code}: ${seen}`)));
});
const auth = { Authorization: "Bearer ghp_test_token", Accept: "application/vnd.github+json" };
const repo = `${base}/repos/acme/widgets`;
try {
  // The check can fail: an object without the fields GitHub requires does not pass.
  check("the description rejects what it does not describe", !schema("workflow-run")({ id: 7 }) && !jobsPage({ jobs: [{}] }));
  // What the fake serves is what GitHub describes.
  const run = await (await fetch(`${repo}/actions/runs/7`, { headers: auth })).json();
  valid("a run", schema("workflow-run"), run);
  const jobs = await (await fetch(`${repo}/actions/runs/7/attempts/1/jobs?per_page=100&page=1`, { headers: auth })).json();
  valid("an attempt's jobs", jobsPage, jobs);
  const log = await fetch(`${repo}/actions/jobs/101/logs`, { headers: auth, redirect: "manual" });
  check("a job's log is a 302 to a signed URL", log.status === 302 && /\/signed\//.test(log.headers.get("location")), log.status);
  for (const [what, url, headers, status] of [
    ["bad credentials", `${repo}/actions/runs/7`, { Authorization: "Bearer wrong" }, 401],
    ["an unknown run", `${repo}/actions/runs/999`, auth, 404],
  ]) {
    const r = await fetch(url, { headers });
    check(`${what} is HTTP ${status}`, r.status === status, r.status);
    valid(`the ${status} body`, schema("basic-error"), await r.json());
  }

  // spool ci-log, as an agent calls it through its shell.
  const env = { ...process.env, SPOOL_HOME: mkdtempSync(join(tmpdir(), "spool-ci-")), GITHUB_API_URL: base, GITHUB_TOKEN: "ghp_test_token" };
  const ci = (...args) => JSON.parse(execFileSync(spool, ["ci-log", "acme/widgets", "7", "--json", ...args], { env }).toString());
  const first = ci();
  const v1 = first.source.version;
  check("ci-log pins the latest attempt", v1.attempt === 1 && v1.latest_attempt === 1 && v1.job === "build", JSON.stringify(v1));
  check("its tail shows the error", first.content.includes("##[error]Process completed with exit code 101."), first.content.slice(-300));
  check("it names the failed step", first.notice.includes("the step that failed: `Run cargo test`"), first.notice);
  check("the token is not in the answer", !JSON.stringify(first).includes("ghp_test_token"));
  await fetch(`${base}/_fake/rerun/7`, { method: "POST" });
  const on = JSON.parse(execFileSync(spool, ["read", first.ref, "--lines", "1:3", "--json"], { env }).toString());
  check("reading on after a re-run stays on attempt 1", on.content.includes("attempt 1 checkout") && !on.content.includes("attempt 2"), on.content);
  const second = ci();
  check("a new call pins attempt 2 and says attempt 1 exists",
    second.source.version.attempt === 2 && second.notice.includes("earlier attempts exist (1 to 1)"), second.notice);
  const one = ci("--attempt", "1");
  check("--attempt 1 gives attempt 1, from its stored copy", one.source.version.attempt === 1 && one.ref === first.ref, one.ref);
  // The API and the token's variable from spool.toml's [ci] table instead of the variables.
  const home = mkdtempSync(join(tmpdir(), "spool-ci-toml-"));
  writeFileSync(join(home, "spool.toml"), `[ci]\napi_url = "${base}"\ntoken_env = "MY_CI_TOKEN"\n`);
  const plain = { PATH: process.env.PATH, SPOOL_HOME: home, MY_CI_TOKEN: "ghp_test_token" };
  const viaToml = JSON.parse(execFileSync(spool, ["ci-log", "acme/widgets", "7", "--json"], { env: plain }).toString());
  check("spool.toml's [ci] names the API and the token's variable", viaToml.source?.version?.attempt === 2, JSON.stringify(viaToml).slice(0, 300));
  let refused = "";
  try {
    execFileSync(spool, ["ci-log", "acme/widgets", "7"], { env: { ...plain, MY_CI_TOKEN: "wrong" }, stdio: "pipe" });
  } catch (e) {
    refused = `${e.stdout}${e.stderr} exit ${e.status}`;
  }
  check("a wrong token is forbidden (exit 5), naming its variable", refused.includes("HTTP 401") && refused.includes("exit 5") && refused.includes("`MY_CI_TOKEN`"), refused);
  // Every spool call the CLI answer prints runs as printed.
  const text = execFileSync(spool, ["ci-log", "acme/widgets", "7"], { env }).toString();
  const nextLine = text.split("\n").find((l) => l.startsWith(" Next: ")) ?? "";
  const calls = nextLine
    .slice(" Next: ".length)
    .split(", or ")
    .map((c) => c.trim())
    .filter((c) => /^spool (ci-log|read) /.test(c));
  check("the answer prints ci-log calls", calls.some((c) => c.startsWith("spool ci-log")), text.slice(0, 800));
  for (const call of calls) {
    let ok = true;
    try {
      execFileSync("sh", ["-c", call.replace(/^spool /, `'${spool}' `)], { env, stdio: "pipe" });
    } catch (e) {
      ok = false;
    }
    check(`\`${call}\` runs as printed`, ok);
  }
} finally {
  server.kill();
}
console.log(`actions: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
