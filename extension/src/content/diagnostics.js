/*
 * Reader of typst.app's "Improve" sidebar (main world).
 *
 * The sidebar lists compiler errors and warnings (grouped under summaries
 * such as "1 compiler error", each card with an optional "(line N)" badge)
 * and spelling suggestions ("teh → the  line 12"). This script turns the
 * visible rows into diagnostic records. It never reports a clean document
 * unless the page says so: a summary count without visible details becomes a
 * placeholder row, and a panel it cannot understand becomes a status row.
 *
 * Exposes globalThis.__typstAgentImproveExtract(doc) → array of
 * {line, column, severity, kind, original, suggestion, message}.
 */
(function (root) {
  'use strict';
  // Every built-in this file calls comes from builtins.js, which took them at
  // document_start, before scripts of the page ran: a page script that later
  // replaces String.prototype.replace, Array.prototype.filter, an iterator or
  // RegExp.prototype.test cannot change what is read (the rules of their use
  // are in builtins.js). Whatever this file returns is still checked and
  // rebuilt by the isolated world and read again by the worker.
  const builtins = root.__typstAgentBuiltins2;
  // The bounds the worker applies to these rows (protocol::limits, through
  // the generated protocol-constants.js, loaded before this file).
  const LIMITS = root.__typstAgentProtocolConstants?.LIMITS;
  if (!builtins || !LIMITS) return;
  const { pattern, exec, listFrom, matchAll, ToString, SafeRegExp, SafeSet } = builtins;
  const { isFinite: numberIsFinite, isInteger: numberIsInteger, parseInt: parseInteger } = builtins;
  const { min: mathMin, max: mathMax } = builtins;
  const { slice, trim, toLowerCase, indexOf } = builtins.string;
  const { push } = builtins.array;
  const { has: setHas, add: setAdd } = builtins.set;
  const { test: regexpTest, replace: regexpReplace } = builtins.regexp;
  const { querySelectorAll } = builtins.document;
  const { querySelectorAll: querySelectorAllIn, getBoundingClientRect, getAttribute } = builtins.element;
  const { contains } = builtins.node;
  const DOCUMENT_NODE = 9;

  const SEVERITY_WORDS = 'error|warning|info|note|hint';
  // A badge alone: "line 7", "(line 7)", "(warning, line 7)", "error: line 7".
  const BADGE_ONLY = pattern(new SafeRegExp(`^\\s*\\(?\\s*(?:(${SEVERITY_WORDS})\\b[\\s,:·•|-]*)?line\\s+(\\d+)\\s*\\)?\\s*$`, 'i'));
  const BADGE_ANYWHERE = pattern(new SafeRegExp(`\\(?\\s*(?:(${SEVERITY_WORDS})\\b[\\s,:·•|-]*)?line\\s+(\\d+)\\s*\\)?`, 'i'));
  const BADGE_ANYWHERE_ALL = pattern(new SafeRegExp(BADGE_ANYWHERE.source, 'gi'));
  const SEVERITY_IN_PARENS = pattern(new SafeRegExp(`\\(\\s*(?:${SEVERITY_WORDS})\\s*\\)`, 'gi'));
  const SEVERITY_PREFIX = pattern(new SafeRegExp(`(?:^|\\s)(?:${SEVERITY_WORDS})\\s*[,:]\\s+`, 'gi'));
  const TYP_FILE_NAMES = pattern(/[\w.-]+\.typ/gi);
  // A compiler card's help link is not part of its message.
  const HELP_LINK = pattern(/\bLearn how to fix this (?:error|warning)\b/gi);
  const REGEX_SPECIALS = pattern(/[.*+?^${}()|[\]\\]/g);
  const WHITESPACE_RUNS = pattern(/\s+/g);
  const ARROW = pattern(/(?:->|→|⇒)/);
  const MAX_ROWS = LIMITS.MAX_PAGE_DIAGNOSTICS;

  // Sentence starts of Typst compiler messages, most specific first; the
  // earliest one in a row marks where its message begins.
  const MESSAGE_STARTS = [
    'unexpected argument', 'unexpected token', 'unknown variable', 'unknown function', 'unknown field',
    'unknown argument', 'missing argument', 'missing closing', 'missing opening', 'unclosed delimiter',
    'unclosed string', 'unclosed raw', 'type error', 'parse error', 'syntax error', 'only one', 'not enough',
    'too many', 'the pdf', 'zero-sized', 'pagebreaks', 'automatic', 'maximum', 'loop', 'document', 'label',
    'selector', 'package', 'file', 'cell', 'type', 'expected', 'cannot', 'could not', 'invalid', 'recursive',
    'duplicate', 'overflow', 'failed'
  ];
  // Where a message stops: a new sentence or the next sidebar section.
  const MESSAGE_ENDS = [
    pattern(/\.\s+[A-Z]/), pattern(/\s+comments\b/i), pattern(/\s+misspellings?\b/i), pattern(/\s+no\s+spelling\b/i),
    pattern(/\s+no\s+comments\b/i), pattern(/\s+add\s+the\s+first\s+one\b/i)
  ];
  const ERROR_WORDS = pattern(/error|unexpected|missing|unknown|unclosed|delimiter|syntax|mismatch|unmatched|overflow|type\s*error|parse\s*error|\binvalid\b|not\s+allowed|not\s+found|failed|cannot\b|could\s+not\b|recursive|duplicate\b|exceeded\b|does\s+not\s+(?:exist|match|converge|stabilize)|did\s+not\s+(?:converge|stabilize)|seems\s+to\s+be\s+infinite|occurs\s+multiple\s+times|is\s+encrypted|out\s+of\s+range|zero[-\s]?sized/i);

  const collapse = text => trim(regexpReplace(WHITESPACE_RUNS, ToString(text || ''), ' '));
  const fullText = element => collapse(element.textContent);

  function ownText(element) {
    let text = '';
    const nodes = listFrom(element.childNodes);
    for (let index = 0; index < nodes.length; index += 1) {
      if (nodes[index].nodeType === 3) text += nodes[index].nodeValue;
    }
    return collapse(text);
  }

  function queryAll(scope, selector) {
    try {
      return listFrom(scope.nodeType === DOCUMENT_NODE
        ? querySelectorAll(scope, selector) : querySelectorAllIn(scope, selector));
    } catch {
      return [];
    }
  }

  // `list`'s items that `wanted` accepts (Array.prototype.filter by index).
  function keep(list, wanted) {
    const kept = [];
    for (let index = 0; index < list.length; index += 1) if (wanted(list[index])) push(kept, list[index]);
    return kept;
  }

  // Whether `wanted` accepts any of `list`'s items.
  function any(list, wanted) {
    for (let index = 0; index < list.length; index += 1) if (wanted(list[index])) return true;
    return false;
  }

  function pushAll(target, items) {
    for (let index = 0; index < items.length; index += 1) push(target, items[index]);
    return target;
  }

  function readBadge(text) {
    const match = exec(BADGE_ANYWHERE, ToString(text || ''));
    if (!match) return null;
    const line = parseInteger(match[2], 10);
    return numberIsFinite(line) ? { line, severity: match[1] ? toLowerCase(match[1]) : null } : null;
  }

  const guessSeverity = message => (!message || regexpTest(ERROR_WORDS, message) ? 'error' : 'warning');

  // The Improve sidebar sits in the left half of the window.
  function inSidebar(element, cutoff) {
    try {
      const rect = getBoundingClientRect(element);
      if (rect.width === 0 && rect.height === 0) return false;
      return rect.left < cutoff && rect.right < cutoff + 80;
    } catch {
      return false;
    }
  }

  function sidebarCutoff(doc) {
    try {
      return mathMax(320, (doc.defaultView?.innerWidth || 1200) * 0.5);
    } catch {
      return 900;
    }
  }

  // ---------- Message text ----------

  function withoutBadges(rowText, badgeText) {
    let text = rowText;
    if (badgeText) {
      const escaped = regexpReplace(REGEX_SPECIALS, badgeText, '\\$&');
      text = regexpReplace(pattern(new SafeRegExp(`\\s*\\(?${escaped}\\)?\\s*`, 'gi')), text, ' ');
    }
    text = regexpReplace(BADGE_ANYWHERE_ALL, text, ' ');
    text = regexpReplace(SEVERITY_IN_PARENS, text, ' ');
    text = regexpReplace(SEVERITY_PREFIX, text, ' ');
    text = regexpReplace(TYP_FILE_NAMES, text, ' ');
    return collapse(regexpReplace(HELP_LINK, text, ' '));
  }

  // The first compiler sentence of a row (from the earliest known start to the
  // first boundary), or the whole text when no start is found.
  function firstSentence(text) {
    const lower = toLowerCase(text);
    let start = -1;
    let startLength = 0;
    for (let which = 0; which < MESSAGE_STARTS.length; which += 1) {
      const prefix = MESSAGE_STARTS[which];
      const index = indexOf(lower, prefix);
      if (index >= 0 && (start < 0 || index < start || (index === start && prefix.length > startLength))) {
        start = index;
        startLength = prefix.length;
      }
    }
    if (start < 0) return trim(text);
    const rest = slice(text, start);
    let end = rest.length;
    for (let which = 0; which < MESSAGE_ENDS.length; which += 1) {
      const match = exec(MESSAGE_ENDS[which], rest);
      if (match && match.index < end) end = match.index;
    }
    return trim(slice(rest, 0, end));
  }

  const SNIPPET_TAIL = pattern(/^(.+?)(?:\s{2,}|\s)([A-Za-z_][\w.-]*\s*:\s*[^:]+)$/);
  const TWO_WORDS = pattern(/[a-z]\s[a-z]/i);

  // typst.app often ends a row with the source snippet ("leading: 1.4").
  function messageAndSnippet(text) {
    if (!text) return { message: '', snippet: '' };
    if (regexpTest(ARROW, text)) return { message: text, snippet: '' };
    const sentence = firstSentence(text) || text;
    const tail = exec(SNIPPET_TAIL, sentence);
    if (tail) {
      const head = trim(tail[1]);
      if (head.length >= 6 && regexpTest(TWO_WORDS, head)) return { message: head, snippet: trim(tail[2]) };
    }
    return { message: sentence, snippet: '' };
  }

  const withSnippet = ({ message, snippet }) => (snippet ? `${message} (near \`${snippet}\`)` : message);

  function record(line, severity, kind, message, original = null, suggestion = null) {
    return { line, column: null, severity, kind, original, suggestion, message };
  }

  const SUGGESTION = pattern(/^(.+?)\s*(?:->|→|⇒)\s*(.+)$/);

  function rowDiagnostic(body, line, badgeSeverity) {
    const text = collapse(body);
    if (text.length < 2) return null;
    const arrow = exec(SUGGESTION, text);
    if (arrow) {
      // Spelling suggestions are advisory: 'info' unless the badge says more.
      const original = trim(arrow[1]);
      const suggestion = trim(arrow[2]);
      return record(line, badgeSeverity || 'info', 'spelling', `${original} → ${suggestion}`, original, suggestion);
    }
    const parts = messageAndSnippet(text);
    return record(line, badgeSeverity || guessSeverity(parts.message || text), 'typst', withSnippet(parts));
  }

  // ---------- Rows found through their line badges ----------

  const LINE_MENTIONS = pattern(/\bline\s+\d+\b/gi);
  const SECTION_TEXTS = [
    pattern(/\bcompiler\s+(error|warning)s?\b/i), pattern(/\bNo\s+comments\b/i), pattern(/\bAdd\s+the\s+first\s+one\b/i),
    pattern(/\bNo\s+spelling\s+mistakes\b/i)
  ];
  const MISSPELLINGS = pattern(/\bMisspellings\b/);
  const COMMENTS = pattern(/\bComments\b/);
  const LINE_BADGES = pattern(/\(?\s*line\s+\d+\s*\)?/gi);

  function looksLikeSeveralRows(text) {
    if (matchAll(LINE_MENTIONS, text).length >= 2) return true;
    return any(SECTION_TEXTS, section => regexpTest(section, text))
      || (regexpTest(MISSPELLINGS, text) && regexpTest(COMMENTS, text));
  }

  // The smallest ancestor of a badge that holds message text and no other row.
  function rowOf(badge) {
    let node = badge.parentElement;
    for (let hops = 0; node && hops < 8; hops += 1, node = node.parentElement) {
      if (node.tagName === 'ASIDE' || node.tagName === 'MAIN' || node.tagName === 'BODY') break;
      const text = fullText(node);
      if (looksLikeSeveralRows(text)) break;
      if (trim(regexpReplace(LINE_BADGES, text, '')).length >= 4) return node;
    }
    return null;
  }

  function badgedRows(doc, cutoff) {
    const badges = keep(queryAll(doc, 'span, div, p, small, button, a, td, strong, em, b, i'), element => {
      const own = ownText(element);
      return own && own.length <= 48 && regexpTest(BADGE_ONLY, own) && inSidebar(element, cutoff);
    });
    const innermost = keep(badges, badge => !any(badges, other => other !== badge && contains(other, badge)));
    const seen = new SafeSet();
    const out = [];
    for (let index = 0; index < innermost.length; index += 1) {
      const badge = innermost[index];
      const badgeText = ownText(badge);
      const info = readBadge(badgeText);
      const row = info && rowOf(badge);
      if (!row || setHas(seen, row)) continue;
      setAdd(seen, row);
      const rowText = fullText(row);
      if (!rowText || rowText.length > 400) continue;
      const diagnostic = rowDiagnostic(withoutBadges(rowText, badgeText), info.line, info.severity);
      if (diagnostic) push(out, diagnostic);
    }
    return out;
  }

  // ---------- The compiler section of the Improve panel ----------

  const IMPROVE = pattern(/^Improve$/i);

  function improvePanel(doc, cutoff) {
    const regions = queryAll(doc, '[role="region"]');
    for (let index = 0; index < regions.length; index += 1) {
      if (!inSidebar(regions[index], cutoff)) continue;
      const headings = queryAll(regions[index], '[role="heading"], h1, h2, h3, h4, strong');
      if (any(headings, heading => regexpTest(IMPROVE, ownText(heading)))) return regions[index];
    }
    return null;
  }

  const COMPILER = pattern(/\bcompiler\b/i);
  const NO_ERRORS = pattern(/\bno\s+compiler\s+errors?\b/i);
  const NO_WARNINGS = pattern(/\bno\s+(?:compiler\s+)?warnings?\b/i);
  const COUNTS = pattern(/(\d+)\s+(?:compiler\s+)?(errors?|warnings?)/gi);
  const ERROR_NOUN = pattern(/^error/i);

  // "1 compiler error", "2 compiler warnings", "1 compiler error, 2 warnings",
  // "No compiler errors"; null when the text is not such a summary.
  function compilerSummary(text) {
    const value = collapse(text);
    if (!regexpTest(COMPILER, value)) return null;
    let errors = regexpTest(NO_ERRORS, value) ? 0 : null;
    let warnings = regexpTest(NO_WARNINGS, value) ? 0 : null;
    const counts = matchAll(COUNTS, value);
    for (let index = 0; index < counts.length; index += 1) {
      const count = mathMin(10000, parseInteger(counts[index][1], 10));
      if (!numberIsFinite(count)) continue;
      if (regexpTest(ERROR_NOUN, counts[index][2])) errors = count;
      else warnings = count;
    }
    return errors == null && warnings == null ? null : { errors, warnings };
  }

  // An element's role attribute, or null when `node` is no element.
  function roleOf(node) {
    try {
      return getAttribute(node, 'role');
    } catch {
      return null;
    }
  }

  // The role="list" that follows a summary, looking a few levels up; another
  // summary in between means this group shows no details.
  function listAfter(node, panel) {
    for (let current = node, level = 0; current && current !== panel && level < 5; current = current.parentElement, level += 1) {
      for (let sibling = current.nextElementSibling; sibling; sibling = sibling.nextElementSibling) {
        if (roleOf(sibling) === 'list') return sibling;
        if (compilerSummary(fullText(sibling))) break;
      }
    }
    return null;
  }

  // The nodes of `nodes` whose text (read by `textOf`) is a compiler summary.
  function summaries(nodes, textOf) {
    const groups = [];
    for (let index = 0; index < nodes.length; index += 1) {
      const summary = compilerSummary(textOf(nodes[index]));
      if (summary) push(groups, { node: nodes[index], summary });
    }
    return groups;
  }

  function compilerGroups(panel) {
    const fromButtons = summaries(queryAll(panel, 'button'), fullText);
    const groups = fromButtons.length ? fromButtons : summaries(queryAll(panel, 'p, span, div, strong'), ownText);
    const withLists = [];
    for (let index = 0; index < groups.length; index += 1) {
      push(withLists, { ...groups[index], list: listAfter(groups[index].node, panel) });
    }
    return withLists;
  }

  function cardMessage(card) {
    const paragraphs = queryAll(card, 'p, [role="paragraph"]');
    for (let index = 0; index < paragraphs.length; index += 1) {
      const text = fullText(paragraphs[index]);
      if (text && text.length <= LIMITS.MAX_DIAGNOSTIC_MESSAGE_CHARS && !regexpTest(BADGE_ONLY, text)) return text;
    }
    return collapse(regexpReplace(HELP_LINK, fullText(card), ' '));
  }

  function cardDiagnostic(card, summary) {
    const badge = readBadge(fullText(card));
    const body = withoutBadges(cardMessage(card), '');
    if (!body || body.length > LIMITS.MAX_DIAGNOSTIC_MESSAGE_CHARS) return null;
    const message = withSnippet(messageAndSnippet(body));
    if (!message) return null;
    let severity = badge?.severity || null;
    if (!severity && summary.errors > 0 && !(summary.warnings > 0)) severity = 'error';
    if (!severity && summary.warnings > 0 && !(summary.errors > 0)) severity = 'warning';
    return record(badge?.line ?? null, severity || guessSeverity(message), 'typst', message);
  }

  const NOTHING_TO_SUGGEST = pattern(/\bThere is nothing we can suggest at the moment\b/i);

  function compilerSection(doc, cutoff) {
    const panel = improvePanel(doc, cutoff);
    const none = { panelFound: !!panel, summaryFound: false, errors: null, warnings: null, rows: [] };
    if (!panel) return none;
    // typst.app replaces every group with this sentence when nothing is wrong.
    if (any(queryAll(panel, 'p'), p => regexpTest(NOTHING_TO_SUGGEST, fullText(p)))) {
      return { ...none, summaryFound: true, errors: 0, warnings: 0 };
    }
    const groups = compilerGroups(panel);
    const section = { ...none, summaryFound: groups.length > 0 };
    for (let index = 0; index < groups.length; index += 1) {
      const { summary, list } = groups[index];
      if (summary.errors != null) section.errors = (section.errors || 0) + summary.errors;
      if (summary.warnings != null) section.warnings = (section.warnings || 0) + summary.warnings;
      const cards = list ? queryAll(list, '[role="listitem"]') : [];
      for (let card = 0; card < cards.length; card += 1) {
        if (!inSidebar(cards[card], cutoff)) continue;
        const diagnostic = cardDiagnostic(cards[card], summary);
        if (diagnostic) push(section.rows, diagnostic);
      }
    }
    return section;
  }

  // ---------- Result ----------

  function dedupe(rows) {
    const seen = new SafeSet();
    return keep(rows, row => {
      const key = `${row.line ?? 'project'}|${row.kind || 'typst'}|${slice(toLowerCase(collapse(row.message)), 0, 300)}`;
      if (setHas(seen, key)) return false;
      setAdd(seen, key);
      return true;
    });
  }

  function placeholders(severity, reported, parsed, room) {
    if (!numberIsInteger(reported) || reported <= parsed) return [];
    const missing = mathMin(room, reported - parsed);
    const noun = reported === 1 ? severity : `${severity}s`;
    const rows = [];
    for (let index = 0; index < mathMax(0, missing); index += 1) {
      push(rows, record(null, severity, 'typst-summary',
        `The Improve panel reports ${reported} compiler ${noun}, but ${missing === 1
          ? `one ${severity}'s details are not visible`
          : `${severity} ${index + 1} of ${missing} has no visible details`}.`));
    }
    return rows;
  }

  function extract(doc) {
    const cutoff = sidebarCutoff(doc);
    const section = compilerSection(doc, cutoff);
    const rows = dedupe(pushAll(badgedRows(doc, cutoff), section.rows));
    const compiler = keep(rows, row => row.kind !== 'spelling' && row.kind !== 'typst-status');
    const parsedErrors = keep(compiler, row => row.severity === 'error').length;
    pushAll(rows, placeholders('error', section.errors, parsedErrors, MAX_ROWS - rows.length));
    const parsedWarnings = keep(compiler, row => row.severity === 'warning').length;
    pushAll(rows, placeholders('warning', section.warnings, parsedWarnings, MAX_ROWS - rows.length));
    if (section.panelFound && !section.summaryFound && !compiler.length) {
      push(rows, record(null, 'warning', 'typst-status',
        'The Improve panel is open, but its compiler status could not be verified. Reopen the panel and read diagnostics again.'));
    }
    return dedupe(rows);
  }

  root.__typstAgentImproveExtract = extract;
})(globalThis);
