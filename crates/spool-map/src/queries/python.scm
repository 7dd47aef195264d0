(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name) @definition.constant))

; References: calls, attributes of modules and classes, imports, bases, decorators, types,
; and names that start upper case (classes and constants used as values).
(call function: (identifier) @reference)
(call function: (attribute attribute: (identifier) @reference.method))
(import_from_statement name: (dotted_name (identifier) @reference))
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @reference)))
(import_from_statement module_name: (dotted_name (identifier) @reference))
(import_statement name: (dotted_name (identifier) @reference))
(decorator (identifier) @reference)
(decorator (attribute attribute: (identifier) @reference))
(type (identifier) @reference)
; A name in upper case (a constant, a type used as a value): kept when the code says it is one.
(identifier) @reference.upper
