//! The one Rhai engine configuration: limits on, no `eval`, no modules, no file access.
//! Scripts are untrusted: a runaway script becomes a diagnostic, never a hang or a crash.

use rhai::Engine;
use rhai::module_resolvers::DummyModuleResolver;

pub use crate::limits::{
    MAX_ARRAY_SIZE, MAX_CALL_LEVELS, MAX_EXPR_DEPTH, MAX_FN_EXPR_DEPTH, MAX_MAP_SIZE, MAX_OPERATIONS, MAX_STRING_SIZE,
};

/// A Rhai engine with the sandbox limits and without any way out of the sandbox.
/// `Engine::new` registers no file or network functions; modules and `eval` are switched off here.
pub fn engine() -> Engine {
    let mut engine = Engine::new();
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_expr_depths(MAX_EXPR_DEPTH, MAX_FN_EXPR_DEPTH)
        .set_max_string_size(MAX_STRING_SIZE)
        .set_max_array_size(MAX_ARRAY_SIZE)
        .set_max_map_size(MAX_MAP_SIZE)
        .set_max_modules(0)
        .set_module_resolver(DummyModuleResolver::new())
        .set_fail_on_invalid_map_property(true)
        .disable_symbol("eval");
    // `print` and `debug` would write to the terminal behind the log's back.
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    engine
}
