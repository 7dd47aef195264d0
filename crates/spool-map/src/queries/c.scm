(function_declarator declarator: (identifier) @name) @definition.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; References: calls, types, and macros and constants (upper case).
(type_identifier) @reference
(call_expression function: (identifier) @reference)
(call_expression function: (field_expression field: (field_identifier) @reference.method))
; A name in upper case (a constant, a type used as a value): kept when the code says it is one.
(identifier) @reference.upper
