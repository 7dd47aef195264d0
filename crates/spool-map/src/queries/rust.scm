; Definitions the map lists: the item (@definition.KIND) and its name (@name).
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
; Type aliases of a module (an `impl`'s associated types are the trait's names).
(source_file (type_item name: (type_identifier) @name) @definition.type)
(mod_item body: (declaration_list (type_item name: (type_identifier) @name) @definition.type))
(trait_item name: (type_identifier) @name) @definition.trait
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
; A module with a body (`mod x;` only names the file that defines it).
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
; What a method belongs to, shown above it.
(impl_item !trait) @scope
; A trait's implementation: its methods are the trait's names (listed where the trait is), so
; they are not listed again.
(impl_item trait: (_)) @scope.hides
; Test modules: not what the code offers.
((mod_item name: (identifier) @_test) @scope.hides (#any-of? @_test "test" "tests"))

; References (`.method` for a method called on a value, which may be any type's: it
; refers only to functions and methods, and weighs less): names in the places that name a definition (a call, a type, a path, a macro,
; an import), not every identifier (a variable called `meta` is not the module `meta`).
(type_identifier) @reference
(call_expression function: (identifier) @reference)
(call_expression function: (field_expression field: (field_identifier) @reference.method))
(call_expression function: (scoped_identifier name: (identifier) @reference))
(generic_function function: (identifier) @reference)
(generic_function function: (field_expression field: (field_identifier) @reference.method))
(generic_function function: (scoped_identifier name: (identifier) @reference))
(scoped_identifier path: (identifier) @reference)
(scoped_type_identifier path: (identifier) @reference)
(scoped_use_list path: (identifier) @reference)
(use_declaration argument: (scoped_identifier name: (identifier) @reference))
(use_list (identifier) @reference)
(use_as_clause path: (scoped_identifier name: (identifier) @reference))
(macro_invocation macro: (identifier) @reference)
; A name in upper case (a constant, a type used as a value): kept when the code says it is one.
(identifier) @reference.upper
