//! Tests of `chat::warm_up`: the samples render, and between them they
//! reach every element the renderer lets through.

use super::SAMPLES;
use crate::chat::incremental::{Finished, IncrementalMarkdown};
use crate::chat::markdown::{ALLOWED_TAGS, render};

#[test]
fn every_sample_renders_as_markdown() {
    for sample in SAMPLES {
        let html = render(sample).unwrap_or_else(|error| panic!("{sample:?} was refused: {error}"));
        assert!(html.contains("</"), "{sample:?} rendered no element: {html}");
    }
}

#[test]
fn the_samples_reach_every_allowed_element() {
    let rendered: String = SAMPLES.iter().map(|sample| render(sample).expect("renders")).collect();
    let missing: Vec<&str> = ALLOWED_TAGS
        .iter()
        .copied()
        .filter(|tag| !rendered.contains(&format!("<{tag}>")) && !rendered.contains(&format!("<{tag} ")))
        .collect();
    assert!(missing.is_empty(), "no sample renders {missing:?}: {rendered}");
}

/// The view sends each sample through the streaming renderer; every one
/// must take its split path (commits, then a tail), not the whole-text
/// fallback, or the commit path would stay cold.
#[test]
fn every_sample_takes_the_split_render_path() {
    for sample in SAMPLES {
        let mut markdown = IncrementalMarkdown::new();
        markdown.push(sample);
        markdown.end(sample);
        let mut commits = 0;
        while let Some(commit) = markdown.commit_until(|| true) {
            commits += 1;
            if !commit.more {
                break;
            }
        }
        assert!(commits > 0, "{sample:?} was committed in no block");
        assert!(
            matches!(markdown.finish(), Finished::Tail(_)),
            "{sample:?} fell back to a whole render"
        );
    }
}
