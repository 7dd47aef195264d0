(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method

; References: calls, constructors, types, and names that start upper case.
(type_identifier) @reference
(method_invocation object: (_) name: (identifier) @reference.method)
(method_invocation !object name: (identifier) @reference)
; A name in upper case (a constant, a type used as a value): kept when the code says it is one.
(identifier) @reference.upper
