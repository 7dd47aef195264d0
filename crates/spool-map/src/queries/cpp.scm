(function_declarator declarator: (identifier) @name) @definition.function
(function_declarator declarator: (field_identifier) @name) @definition.method
(function_declarator declarator: (qualified_identifier name: (identifier) @name)) @definition.function
(function_declarator
  declarator: (qualified_identifier name: (qualified_identifier name: (identifier) @name))) @definition.function
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(namespace_definition name: (namespace_identifier) @name) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; References: calls, types, namespaces, and macros and constants (upper case).
(type_identifier) @reference
(namespace_identifier) @reference
(call_expression function: (identifier) @reference)
(call_expression function: (field_expression field: (field_identifier) @reference.method))
(call_expression function: (qualified_identifier name: (identifier) @reference))
(template_function name: (identifier) @reference)
; A name in upper case (a constant, a type used as a value): kept when the code says it is one.
(identifier) @reference.upper
