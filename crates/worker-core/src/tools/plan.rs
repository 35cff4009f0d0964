//! The order in which one round's tool calls execute.
//!
//! Provider order is kept across every call, because reads, file switches and
//! edits depend on what ran before them. The single exception is safe: a
//! contiguous group of `replace_lines` calls whose line ranges are all valid
//! and pairwise disjoint runs bottom-to-top, so an earlier replacement never
//! shifts the lines a later one targets. Any doubt (unparsable arguments,
//! overlapping ranges) keeps the group in provider order. The `role:'tool'`
//! answers always go back to the model in provider order, whatever ran first.

use protocol::js;
use protocol::tool_schema::parse_tool_arguments;
use serde_json::Value;

/// The only tool whose calls may be reordered.
const REORDERABLE: &str = "replace_lines";

fn line_number(value: Option<&Value>) -> Option<f64> {
    value.filter(|v| js::is_integer(v)).and_then(js::as_number)
}

/// `(start, end)` of a `replace_lines` call whose range is well formed.
fn line_range(raw_args: &str) -> Option<(f64, f64)> {
    let args = parse_tool_arguments(raw_args).ok()?;
    let start = line_number(args.get("start_line"))?;
    let end = line_number(args.get("end_line"))?;
    (start >= 1.0 && end >= start).then_some((start, end))
}

/// The ranges of a group, if every one is valid and none overlaps another.
fn disjoint_ranges(group: &[(&str, &str)]) -> Option<Vec<(f64, f64)>> {
    let ranges: Vec<(f64, f64)> = group.iter().map(|(_, raw)| line_range(raw)).collect::<Option<_>>()?;
    let mut sorted = ranges.clone();
    protocol::js::sort_by(&mut sorted, |a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    sorted
        .windows(2)
        .all(|pair| matches!(pair, [previous, next] if next.0 > previous.1))
        .then_some(ranges)
}

/// Execution order of calls given as `(name, raw_args)`, as indices into
/// `calls`. Every index appears exactly once.
pub(crate) fn execution_order(calls: &[(&str, &str)]) -> Vec<usize> {
    let mut order = Vec::with_capacity(calls.len());
    let mut index = 0;
    while index < calls.len() {
        let is_reorderable = |i: usize| calls.get(i).is_some_and(|(name, _)| *name == REORDERABLE);
        if !is_reorderable(index) {
            order.push(index);
            index += 1;
            continue;
        }
        let mut end = index + 1;
        while is_reorderable(end) {
            end += 1;
        }
        let group = calls.get(index..end).unwrap_or_default();
        match disjoint_ranges(group) {
            Some(ranges) => {
                let mut planned: Vec<(usize, f64)> = ranges
                    .iter()
                    .enumerate()
                    .map(|(offset, (start, _))| (index + offset, *start))
                    .collect();
                // Stable: equal starts keep provider order.
                protocol::js::sort_by(&mut planned, |a, b| b.1.total_cmp(&a.1));
                order.extend(planned.into_iter().map(|(i, _)| i));
            }
            None => order.extend(index..end),
        }
        index = end;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(calls: &[(&str, &str)]) -> Vec<String> {
        execution_order(calls)
            .into_iter()
            .filter_map(|i| calls.get(i))
            .map(|(name, raw)| format!("{name}{raw}"))
            .collect()
    }

    #[test]
    fn stateful_tools_keep_provider_order() {
        let calls = [
            ("read_diagnostics", "{}"),
            ("search_replace", "{}"),
            ("replace_lines", r#"{"start_line":5,"end_line":5}"#),
        ];
        assert_eq!(execution_order(&calls), vec![0, 1, 2]);
        let writes = [("search_replace", "{}"), ("insert_at_cursor", "{}")];
        assert_eq!(execution_order(&writes), vec![0, 1]);
    }

    #[test]
    fn line_replacements_run_bottom_to_top() {
        let calls = [
            ("replace_lines", r#"{"start_line":3,"end_line":3}"#),
            ("replace_lines", r#"{"start_line":10,"end_line":10.0}"#),
            ("replace_lines", r#"{"start_line":6,"end_line":8}"#),
        ];
        assert_eq!(execution_order(&calls), vec![1, 2, 0]);
    }

    #[test]
    fn groups_never_cross_other_calls() {
        let calls = [
            ("open_project_file", r#"{"path":"a.typ"}"#),
            ("replace_lines", r#"{"start_line":2,"end_line":2}"#),
            ("read_document", "{}"),
            ("open_project_file", r#"{"path":"b.typ"}"#),
            ("replace_lines", r#"{"start_line":3,"end_line":3}"#),
            ("replace_lines", r#"{"start_line":9,"end_line":9}"#),
        ];
        assert_eq!(execution_order(&calls), vec![0, 1, 2, 3, 5, 4]);
    }

    #[test]
    fn doubtful_groups_keep_provider_order() {
        let overlapping = [
            ("replace_lines", r#"{"start_line":1,"end_line":5}"#),
            ("replace_lines", r#"{"start_line":5,"end_line":6}"#),
        ];
        assert_eq!(execution_order(&overlapping), vec![0, 1]);
        let broken = [
            ("replace_lines", r#"{"start_line":1,"end_line":1}"#),
            ("replace_lines", "{not json"),
        ];
        assert_eq!(execution_order(&broken), vec![0, 1]);
        let backwards = [
            ("replace_lines", r#"{"start_line":1,"end_line":1}"#),
            ("replace_lines", r#"{"start_line":9,"end_line":4}"#),
        ];
        assert_eq!(execution_order(&backwards), vec![0, 1]);
        let fractional = [
            ("replace_lines", r#"{"start_line":1,"end_line":1}"#),
            ("replace_lines", r#"{"start_line":2.5,"end_line":4}"#),
        ];
        assert_eq!(execution_order(&fractional), vec![0, 1]);
    }

    #[test]
    fn every_call_runs_exactly_once() {
        let calls = [
            ("replace_lines", r#"{"start_line":4,"end_line":4}"#),
            ("replace_lines", r#"{"start_line":4,"end_line":4}"#),
            ("read_document", "{}"),
        ];
        let order = execution_order(&calls);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2]);
        assert_eq!(names(&calls).len(), 3);
    }
}
