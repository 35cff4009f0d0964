//! The change a panel asks for, applied to the stored list inside the
//! worker's storage queue (the original's `applyRecordMutation`), so two
//! panels editing at once never undo each other's changes.

use super::errors::MutationError;
use super::fields::{ENABLED, spread, strict_equal};
use crate::payloads::RegistryMutation;
use serde_json::Value;

/// The list after `mutation`:
///
/// - `replace`: the given records (each a copy of its own fields);
/// - `upsert`: the record shallow-merged over the one with the same `id`
///   (fields it does not name stay as stored), or appended;
/// - `remove`: every record with that `id` dropped;
/// - `toggle`: `enabled` of the records with that `id` flipped, where an
///   absent `enabled` counts as on;
/// - `select` is for models only: [`MutationError`].
pub fn apply_record_mutation(records: &[Value], mutation: &RegistryMutation) -> Result<Vec<Value>, MutationError> {
    match mutation {
        RegistryMutation::Replace { records } => Ok(records.iter().map(|r| Value::Object(spread(r))).collect()),
        RegistryMutation::Upsert { record } => {
            let mut next: Vec<Value> = records.iter().map(|r| Value::Object(spread(r))).collect();
            let id = record.get("id");
            match next.iter_mut().find(|r| strict_equal(r.get("id"), id)) {
                Some(Value::Object(existing)) => existing.extend(record.clone()),
                _ => next.push(Value::Object(record.clone())),
            }
            Ok(next)
        }
        RegistryMutation::Remove { id } => {
            let id = Value::String(id.clone());
            Ok(records
                .iter()
                .filter(|r| !strict_equal(r.get("id"), Some(&id)))
                .cloned()
                .collect())
        }
        RegistryMutation::Toggle { id } => {
            let id = Value::String(id.clone());
            Ok(records
                .iter()
                .map(|r| {
                    if !strict_equal(r.get("id"), Some(&id)) {
                        return r.clone();
                    }
                    let mut toggled = spread(r);
                    let was_off = toggled.get(ENABLED) == Some(&Value::Bool(false));
                    toggled.insert(ENABLED.to_owned(), Value::Bool(was_off));
                    Value::Object(toggled)
                })
                .collect())
        }
        RegistryMutation::Select { .. } => Err(MutationError),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn record(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn each_mutation_changes_only_what_it_names() {
        let stored = vec![
            json!({"id": "a", "name": "one", "note": "kept"}),
            json!({"id": "b", "enabled": false}),
        ];
        let upsert = RegistryMutation::Upsert {
            record: record(json!({"id": "a", "name": "uno"})),
        };
        assert_eq!(
            apply_record_mutation(&stored, &upsert),
            Ok(vec![
                json!({"id": "a", "name": "uno", "note": "kept"}),
                json!({"id": "b", "enabled": false})
            ])
        );
        let append = RegistryMutation::Upsert {
            record: record(json!({"id": "c"})),
        };
        assert_eq!(apply_record_mutation(&stored, &append).map(|l| l.len()), Ok(3));
        let remove = RegistryMutation::Remove { id: "a".into() };
        assert_eq!(
            apply_record_mutation(&stored, &remove),
            Ok(vec![json!({"id": "b", "enabled": false})])
        );
        let toggle_a = RegistryMutation::Toggle { id: "a".into() };
        assert_eq!(
            apply_record_mutation(&stored, &toggle_a).map(|l| l[0]["enabled"].clone()),
            Ok(json!(false))
        );
        let toggle_b = RegistryMutation::Toggle { id: "b".into() };
        assert_eq!(
            apply_record_mutation(&stored, &toggle_b).map(|l| l[1]["enabled"].clone()),
            Ok(json!(true))
        );
        let replace = RegistryMutation::Replace {
            records: vec![json!({"id": "z"}), json!(null)],
        };
        assert_eq!(
            apply_record_mutation(&stored, &replace),
            Ok(vec![json!({"id": "z"}), json!({})])
        );
        let select = RegistryMutation::Select { id: "a".into() };
        assert_eq!(apply_record_mutation(&stored, &select), Err(MutationError));
    }
}
