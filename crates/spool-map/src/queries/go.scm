(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name) @definition.method
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))

; References: calls, types, and exported names (upper case) used as values.
(type_identifier) @reference
(call_expression function: (identifier) @reference)
(call_expression function: (selector_expression field: (field_identifier) @reference.method))
; A name in upper case (a constant, a type used as a value): kept when the code says it is one.
(identifier) @reference.upper
(field_identifier) @reference.upper
