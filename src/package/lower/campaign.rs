//! Lowering a `campaign` item: a game's missions in order, and the script functions run
//! between them (see `crate::campaign`), each bound by its arity. Lowered after every game,
//! whose missions it names.

use super::Lower;
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::limits::MAX_CAMPAIGN_MISSIONS;
use crate::package::merge::MergedItem;
use crate::ruleset::{CampaignDef, Ruleset};
use crate::source::SourceMap;
use crate::syntax::ast;

impl Lower<'_> {
    pub(super) fn campaign(
        &mut self,
        item: &MergedItem,
        ruleset: &Ruleset,
        sources: &SourceMap,
    ) -> Option<CampaignDef> {
        let known = ["game", "missions", "before", "after", "end", "source", "text", "label"];
        let props = self.props(&item.entries, "a campaign", &known, &[], false);
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let text = self.text(props.get("text"));
        let game = match props.get("game") {
            Some(p) => {
                let (name, span) = self.name(p)?;
                if !ruleset.games.contains_key(&name) {
                    let help = did_you_mean(&name, ruleset.games.keys().map(String::as_str))
                        .unwrap_or_else(|| "a campaign plays the missions of one of the package's `game` items".into());
                    self.err(
                        Diagnostic::error(span, format!("no game `{name}` in this package"), "unknown game")
                            .with_help(help),
                    );
                    return None;
                }
                Some(name)
            }
            None if ruleset.games.len() == 1 => None,
            None => {
                self.err(
                    Diagnostic::error(
                        item.id.span,
                        format!("campaign `{}` does not say which game it plays", item.id.text),
                        "no `game`",
                    )
                    .with_help(if ruleset.games.is_empty() {
                        "declare a `game` item first: a campaign plays its missions".to_string()
                    } else {
                        format!(
                            "add `game <id>` ({})",
                            ruleset.games.keys().cloned().collect::<Vec<_>>().join(", ")
                        )
                    }),
                );
                return None;
            }
        };
        let Some(p) = props.get("missions") else {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("campaign `{}` names no missions", item.id.text),
                    "no `missions`",
                )
                .with_help("add `missions [first, second, …]`: the missions in the order they are played"),
            );
            return None;
        };
        let values: Vec<&ast::Value> = match p.values.as_slice() {
            [
                ast::Value {
                    kind: ast::ValueKind::List(list),
                    ..
                },
            ] => list.iter().collect(),
            values => values.iter().collect(),
        };
        let mut missions = Vec::new();
        for v in values {
            let Some(name) = v.as_name() else {
                self.err(
                    Diagnostic::error(v.span, "a campaign's missions are mission ids", v.describe())
                        .with_help("write `missions [mission-1, mission-2]`"),
                );
                continue;
            };
            let known =
                ruleset.missions.get(name).is_some_and(|m| !m.grid.is_empty()) || ruleset.battlefield_mission(name);
            if !known {
                let help = did_you_mean(name, ruleset.missions.keys().map(String::as_str))
                    .unwrap_or_else(|| "name a mission of the package that has a map to play on".into());
                self.err(
                    Diagnostic::error(v.span, format!("no playable mission `{name}`"), "unknown mission")
                        .with_help(help),
                );
                continue;
            }
            missions.push(name.to_string());
        }
        if missions.is_empty() {
            self.err(Diagnostic::error(
                p.span,
                "a campaign needs at least one mission",
                "no missions",
            ));
            return None;
        }
        if missions.len() > MAX_CAMPAIGN_MISSIONS {
            self.err(
                Diagnostic::error(
                    p.span,
                    format!(
                        "a campaign names at most {MAX_CAMPAIGN_MISSIONS} missions (`MAX_CAMPAIGN_MISSIONS`); this one names {}",
                        missions.len()
                    ),
                    "too many",
                )
                .with_help("split it into several campaigns"),
            );
            return None;
        }
        let mut hook = |key: &str, arity: usize, shape: &str| -> Option<String> {
            let p = props.get(key)?;
            let (name, span) = self.name(p)?;
            self.bound_function(&name, span, arity, shape, &ruleset.scripts, sources);
            Some(name)
        };
        let before = hook("before", 2, "fn NAME(state, mission)");
        let after = hook("after", 2, "fn NAME(state, result)");
        let end = hook("end", 1, "fn NAME(state)");
        Some(CampaignDef {
            id: item.id.text.clone(),
            label,
            game,
            missions,
            before,
            after,
            end,
            source,
            text,
            span: item.id.span,
        })
    }
}
