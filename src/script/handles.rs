//! The script-facing handle types: read-only views that share one map built once, instead of
//! a copy of it per call. A [`RecordView`] is a record of the package (`record(kind, id)`,
//! `records(kind)`, `game.mission()`); a [`PieceView`] is a piece as it was when
//! `game.piece(id)` was asked. Scripts read them exactly as they read the maps they replace:
//! `r.label`, `r["choose-from"]`, `"dice" in r`, `r.keys()`, `r.values()`, `r.len()`,
//! `r.get("x")`, `==`, printing; a field the map does not hold is the same error it was.
//! Writing to one is a script error at its line that changes nothing; `to_map()` gives a
//! script its own mutable copy. A handle kept in the game (`game.set`, a procedure's result)
//! is kept as the map it reads as ([`plain`]). The mission's view is kept by
//! [`MissionViews`], a piece's by the game (`Game::piece_view`) until that piece changes.

use crate::ruleset::Ruleset;
use rhai::{Array, Dynamic, Engine, EvalAltResult, INT, ImmutableString, Map, NativeCallContext, Position};
use std::sync::{Arc, Mutex};

type Res<T> = Result<T, Box<EvalAltResult>>;

/// A record of the package as scripts read it: its fields plus `id`, `label`, `source`,
/// `text` (the mission adds `width` and `height`). `type_of` says `"record"`.
#[derive(Clone)]
pub struct RecordView(Arc<Map>);

/// A piece as it was when asked: `id`, `kind`, `side`, `status`, `at`, `squares`, `life`,
/// `hidden`, `fields` (and `point` on a battlefield). A later change to the game does not
/// change a view already taken. `type_of` says `"piece"`.
#[derive(Clone)]
pub struct PieceView(Arc<Map>);

/// What the two handle types share: a name for `type_of` and messages, and the map.
trait Handle: Clone + Send + Sync + 'static {
    /// What `type_of` answers.
    const TYPE: &'static str;
    /// How a refusal to write names it, and how to get a copy.
    const REFUSAL: &'static str;
    fn map(&self) -> &Arc<Map>;
}

impl Handle for RecordView {
    const TYPE: &'static str = "record";
    const REFUSAL: &'static str = "records are read-only (every script shares the package's record): \
         copy one with `let mine = r.to_map();` and change the copy";
    fn map(&self) -> &Arc<Map> {
        &self.0
    }
}

impl Handle for PieceView {
    const TYPE: &'static str = "piece";
    const REFUSAL: &'static str = "a piece from `game.piece(id)` is read-only (it shows the piece as it was when \
         asked): change the piece with the game's actions (`game.set`, `game.damage`, …), or copy it with \
         `let mine = p.to_map();` and change the copy";
    fn map(&self) -> &Arc<Map> {
        &self.0
    }
}

impl RecordView {
    pub fn new(map: Map) -> RecordView {
        RecordView(Arc::new(map))
    }

    /// One field as scripts read it, or `None` when the record has no such field.
    pub fn field(&self, key: &str) -> Option<&Dynamic> {
        self.0.get(key)
    }
}

impl PieceView {
    pub fn new(map: Map) -> PieceView {
        PieceView(Arc::new(map))
    }
}

/// `game.mission()`'s view, built once for the mission being played (a host's games share
/// one engine: a game of another mission or package builds it again).
#[derive(Default)]
pub struct MissionViews(Mutex<Option<(Arc<Ruleset>, String, RecordView)>>);

impl MissionViews {
    pub fn get(&self, ruleset: &Arc<Ruleset>, mission: &str) -> Result<RecordView, String> {
        let mut made = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((r, m, view)) = made.as_ref()
            && Arc::ptr_eq(r, ruleset)
            && m == mission
        {
            return Ok(view.clone());
        }
        let view = RecordView::new(mission_map(ruleset, mission)?);
        *made = Some((ruleset.clone(), mission.to_string(), view.clone()));
        Ok(view)
    }
}

/// What `game.mission()` reads as: the mission's fields plus `id`, `width`, `height`.
fn mission_map(ruleset: &Ruleset, mission: &str) -> Result<Map, String> {
    let fields = |fields: &indexmap::IndexMap<String, crate::ruleset::Value>| -> Map {
        fields
            .iter()
            .map(|(k, v)| (k.as_str().into(), super::to_dynamic(v)))
            .collect()
    };
    let (mut map, id, width, height) = match ruleset.missions.get(mission) {
        Some(m) => (fields(&m.fields), &m.id, m.grid.width as INT, m.grid.height as INT),
        None => {
            // A data-only mission played on a battlefield: its record's fields.
            let r = ruleset
                .records
                .get("mission")
                .and_then(|r| r.get(mission))
                .ok_or("the mission is gone")?;
            (fields(&r.fields), &r.id, 0, 0)
        }
    };
    map.insert("id".into(), id.clone().into());
    map.insert("width".into(), Dynamic::from_int(width));
    map.insert("height".into(), Dynamic::from_int(height));
    Ok(map)
}

/// The fields every piece view has, each given a getter of its own.
const PIECE_FIELDS: [&str; 10] = [
    "id", "kind", "side", "status", "at", "point", "squares", "life", "hidden", "fields",
];

/// The fields every record view has besides its schema's (a mission's adds `width` and
/// `height`).
pub const RECORD_FIELDS: [&str; 6] = ["id", "label", "source", "text", "width", "height"];

/// Registers both handle types and every function a script may call on them.
pub fn register(engine: &mut Engine) {
    register_handle::<RecordView>(engine);
    register_handle::<PieceView>(engine);
    for name in PIECE_FIELDS {
        register_getter::<PieceView>(engine, name);
    }
}

/// Gives records a getter for each of `names` (the fields of a package's records), so that
/// `r.name` is one call; any other field is read through the indexer, which `r.name` falls
/// back on after looking for a getter (dearer: the lookup fails with an error first).
pub fn register_record_fields<'a>(engine: &mut Engine, names: impl IntoIterator<Item = &'a str>) {
    for name in names {
        register_getter::<RecordView>(engine, name);
    }
}

fn register_getter<T: Handle>(engine: &mut Engine, name: &str) {
    let key = ImmutableString::from(name);
    engine.register_get(name, move |h: &mut T| -> Res<Dynamic> { field(h, &key) });
}

fn field<T: Handle>(h: &T, key: &str) -> Res<Dynamic> {
    match h.map().get(key) {
        Some(v) => Ok(v.clone()),
        // What the map answered: the engine refuses a property a map does not hold.
        None => Err(EvalAltResult::ErrorPropertyNotFound(key.to_string(), Position::NONE).into()),
    }
}

fn register_handle<T: Handle>(engine: &mut Engine) {
    engine.register_type_with_name::<T>(T::TYPE);
    // `r.field` falls back on this indexer when no getter of that name is registered.
    engine.register_indexer_get(|h: &mut T, key: ImmutableString| -> Res<Dynamic> { field(h, &key) });
    // Rhai feeds a property back after a method that may change it (`r.list.push(x)`): the
    // same value back is no change and passes; anything else is refused.
    engine.register_indexer_set(|h: &mut T, key: ImmutableString, value: Dynamic| -> Res<()> {
        match h.map().get(key.as_str()) {
            Some(old) if same(old, &value) => Ok(()),
            _ => Err(format!("cannot set `{key}`: {}", T::REFUSAL).into()),
        }
    });
    engine.register_fn("contains", |h: &mut T, key: &str| h.map().contains_key(key));
    engine.register_fn("get", |h: &mut T, key: &str| {
        h.map().get(key).cloned().unwrap_or(Dynamic::UNIT)
    });
    engine.register_fn("keys", |h: &mut T| -> Array {
        h.map()
            .keys()
            .map(|k| Dynamic::from(ImmutableString::from(k.as_str())))
            .collect()
    });
    engine.register_fn("values", |h: &mut T| -> Array { h.map().values().cloned().collect() });
    engine.register_fn("len", |h: &mut T| h.map().len() as INT);
    engine.register_fn("is_empty", |h: &mut T| h.map().is_empty());
    engine.register_fn("to_map", |h: &mut T| -> Map { (**h.map()).clone() });
    engine.register_fn("==", |a: &mut T, b: T| {
        Arc::ptr_eq(a.map(), b.map()) || same_maps(a.map(), b.map())
    });
    engine.register_fn("!=", |a: &mut T, b: T| {
        !(Arc::ptr_eq(a.map(), b.map()) || same_maps(a.map(), b.map()))
    });
    // Printed as the map it reads as (`${r}`, `print`, `debug`).
    engine.register_fn("to_string", |ctx: NativeCallContext, h: &mut T| {
        shown(&ctx, h, "to_string")
    });
    engine.register_fn("to_debug", |ctx: NativeCallContext, h: &mut T| {
        shown(&ctx, h, "to_debug")
    });
    // The map functions that change a map, refused the same way.
    engine.register_fn("set", |_: &mut T, key: &str, _: Dynamic| -> Res<()> {
        Err(format!("cannot set `{key}`: {}", T::REFUSAL).into())
    });
    engine.register_fn("remove", |_: &mut T, key: &str| -> Res<Dynamic> {
        Err(format!("cannot remove `{key}`: {}", T::REFUSAL).into())
    });
    engine.register_fn("clear", |_: &mut T| -> Res<()> {
        Err(format!("cannot clear it: {}", T::REFUSAL).into())
    });
    engine.register_fn("mixin", |_: &mut T, _: Map| -> Res<()> {
        Err(format!("cannot change it: {}", T::REFUSAL).into())
    });
    engine.register_fn("+=", |_: &mut T, _: Map| -> Res<()> {
        Err(format!("cannot change it: {}", T::REFUSAL).into())
    });
}

fn shown<T: Handle>(ctx: &NativeCallContext, h: &T, how: &str) -> Res<ImmutableString> {
    ctx.call_native_fn::<ImmutableString>(how, (Dynamic::from_map((**h.map()).clone()),))
}

/// Whether two script values are equal as data (the same scalars, texts, lists and maps).
fn same(a: &Dynamic, b: &Dynamic) -> bool {
    if a.is_unit() || b.is_unit() {
        return a.is_unit() && b.is_unit();
    }
    if let (Ok(x), Ok(y)) = (a.as_int(), b.as_int()) {
        return x == y;
    }
    if let (Ok(x), Ok(y)) = (a.as_bool(), b.as_bool()) {
        return x == y;
    }
    if let (Ok(x), Ok(y)) = (a.as_float(), b.as_float()) {
        return x == y;
    }
    if let (Ok(x), Ok(y)) = (a.as_char(), b.as_char()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.read_lock::<ImmutableString>(), b.read_lock::<ImmutableString>()) {
        return *x == *y;
    }
    if let (Some(x), Some(y)) = (a.read_lock::<Array>(), b.read_lock::<Array>()) {
        return x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q));
    }
    if let (Some(x), Some(y)) = (a.read_lock::<Map>(), b.read_lock::<Map>()) {
        return same_maps(&x, &y);
    }
    if let (Some(x), Some(y)) = (a.read_lock::<RecordView>(), b.read_lock::<RecordView>()) {
        return Arc::ptr_eq(&x.0, &y.0) || same_maps(&x.0, &y.0);
    }
    if let (Some(x), Some(y)) = (a.read_lock::<PieceView>(), b.read_lock::<PieceView>()) {
        return Arc::ptr_eq(&x.0, &y.0) || same_maps(&x.0, &y.0);
    }
    false
}

fn same_maps(a: &Map, b: &Map) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
}

/// `value` with every handle in it turned into the map it reads as, or `None` when it holds
/// none (the common case: nothing is copied). For what leaves the scripts as data: a value
/// kept in the game, a procedure's result.
pub fn plain(value: &Dynamic) -> Option<Dynamic> {
    if let Some(h) = value.read_lock::<RecordView>() {
        return Some(Dynamic::from_map((*h.0).clone()));
    }
    if let Some(h) = value.read_lock::<PieceView>() {
        return Some(Dynamic::from_map((*h.0).clone()));
    }
    if let Some(list) = value.read_lock::<Array>() {
        if !list.iter().any(holds_handle) {
            return None;
        }
        let list: Array = list.iter().map(|v| plain(v).unwrap_or_else(|| v.clone())).collect();
        return Some(list.into());
    }
    if let Some(map) = value.read_lock::<Map>() {
        if !map.values().any(holds_handle) {
            return None;
        }
        let map: Map = map
            .iter()
            .map(|(k, v)| (k.clone(), plain(v).unwrap_or_else(|| v.clone())))
            .collect();
        return Some(map.into());
    }
    None
}

fn holds_handle(value: &Dynamic) -> bool {
    value.is::<RecordView>()
        || value.is::<PieceView>()
        || value.read_lock::<Array>().is_some_and(|l| l.iter().any(holds_handle))
        || value.read_lock::<Map>().is_some_and(|m| m.values().any(holds_handle))
}
