(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (class)]) @definition.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)))
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (class)]) @definition.function

; References: calls, constructors, imports, JSX elements, bases, and names that start upper
; case (classes and constants used as values).
(call_expression function: (identifier) @reference)
(call_expression function: (member_expression property: (property_identifier) @reference.method))
(new_expression constructor: (identifier) @reference)
(import_specifier name: (identifier) @reference)
(jsx_opening_element name: (identifier) @reference)
(jsx_self_closing_element name: (identifier) @reference)
(class_heritage (identifier) @reference)
; A name in upper case (a constant, a type used as a value): kept when the code says it is one.
(identifier) @reference.upper
