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
  // Built-ins this file calls, taken while it loads (document_start, before
  // scripts of the page run): a page script that later replaces Array.from,
  // Math.min or RegExp.prototype.test cannot change what is read. Whatever
  // this file returns is still checked and rebuilt by the isolated world and
  // read again by the worker.
  const uncurryThis = Function.prototype.call.bind(Function.prototype.bind, Function.prototype.call);
  const arrayFrom = Array.from;
  const { isFinite: numberIsFinite, isInteger: numberIsInteger } = Number;
  const { min: mathMin, max: mathMax } = Math;
  const regexpTest = uncurryThis(RegExp.prototype.test);
  // The bounds the worker applies to these rows (protocol::limits, through
  // the generated protocol-constants.js, loaded before this file).
  const LIMITS = root.__typstAgentProtocolConstants?.LIMITS;
  if (!LIMITS) return;

  const SEVERITY_WORDS = 'error|warning|info|note|hint';
  // A badge alone: "line 7", "(line 7)", "(warning, line 7)", "error: line 7".
  const BADGE_ONLY = new RegExp(`^\\s*\\(?\\s*(?:(${SEVERITY_WORDS})\\b[\\s,:·•|-]*)?line\\s+(\\d+)\\s*\\)?\\s*$`, 'i');
  const BADGE_ANYWHERE = new RegExp(`\\(?\\s*(?:(${SEVERITY_WORDS})\\b[\\s,:·•|-]*)?line\\s+(\\d+)\\s*\\)?`, 'i');
  const BADGE_ANYWHERE_ALL = new RegExp(BADGE_ANYWHERE.source, 'gi');
  const ARROW = /(?:->|→|⇒)/;
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
    /\.\s+[A-Z]/, /\s+comments\b/i, /\s+misspellings?\b/i, /\s+no\s+spelling\b/i, /\s+no\s+comments\b/i,
    /\s+add\s+the\s+first\s+one\b/i
  ];
  const ERROR_WORDS = /error|unexpected|missing|unknown|unclosed|delimiter|syntax|mismatch|unmatched|overflow|type\s*error|parse\s*error|\binvalid\b|not\s+allowed|not\s+found|failed|cannot\b|could\s+not\b|recursive|duplicate\b|exceeded\b|does\s+not\s+(?:exist|match|converge|stabilize)|did\s+not\s+(?:converge|stabilize)|seems\s+to\s+be\s+infinite|occurs\s+multiple\s+times|is\s+encrypted|out\s+of\s+range|zero[-\s]?sized/i;

  const collapse = text => String(text || '').replace(/\s+/g, ' ').trim();
  const fullText = element => collapse(element.textContent);

  function ownText(element) {
    let text = '';
    for (const node of element.childNodes) {
      if (node.nodeType === 3) text += node.nodeValue;
    }
    return collapse(text);
  }

  function queryAll(scope, selector) {
    try {
      return arrayFrom(scope.querySelectorAll(selector));
    } catch {
      return [];
    }
  }

  function readBadge(text) {
    const match = String(text || '').match(BADGE_ANYWHERE);
    if (!match) return null;
    const line = parseInt(match[2], 10);
    return numberIsFinite(line) ? { line, severity: match[1] ? match[1].toLowerCase() : null } : null;
  }

  const guessSeverity = message => (!message || regexpTest(ERROR_WORDS, message) ? 'error' : 'warning');

  // The Improve sidebar sits in the left half of the window.
  function inSidebar(element, cutoff) {
    try {
      const rect = element.getBoundingClientRect();
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
      const escaped = badgeText.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      text = text.replace(new RegExp(`\\s*\\(?${escaped}\\)?\\s*`, 'gi'), ' ');
    }
    return collapse(text
      .replace(BADGE_ANYWHERE_ALL, ' ')
      .replace(new RegExp(`\\(\\s*(?:${SEVERITY_WORDS})\\s*\\)`, 'gi'), ' ')
      .replace(new RegExp(`(?:^|\\s)(?:${SEVERITY_WORDS})\\s*[,:]\\s+`, 'gi'), ' ')
      .replace(/[\w.-]+\.typ/gi, ' ')
      // A compiler card's help link is not part of its message.
      .replace(/\bLearn how to fix this (?:error|warning)\b/gi, ' '));
  }

  // The first compiler sentence of a row (from the earliest known start to the
  // first boundary), or the whole text when no start is found.
  function firstSentence(text) {
    const lower = text.toLowerCase();
    let start = -1;
    let startLength = 0;
    for (const prefix of MESSAGE_STARTS) {
      const index = lower.indexOf(prefix);
      if (index >= 0 && (start < 0 || index < start || (index === start && prefix.length > startLength))) {
        start = index;
        startLength = prefix.length;
      }
    }
    if (start < 0) return text.trim();
    const rest = text.slice(start);
    let end = rest.length;
    for (const boundary of MESSAGE_ENDS) {
      const match = rest.match(boundary);
      if (match && match.index < end) end = match.index;
    }
    return rest.slice(0, end).trim();
  }

  // typst.app often ends a row with the source snippet ("leading: 1.4").
  function messageAndSnippet(text) {
    if (!text) return { message: '', snippet: '' };
    if (regexpTest(ARROW, text)) return { message: text, snippet: '' };
    const sentence = firstSentence(text) || text;
    const tail = sentence.match(/^(.+?)(?:\s{2,}|\s)([A-Za-z_][\w.-]*\s*:\s*[^:]+)$/);
    if (tail) {
      const head = tail[1].trim();
      if (head.length >= 6 && regexpTest(/[a-z]\s[a-z]/i, head)) return { message: head, snippet: tail[2].trim() };
    }
    return { message: sentence, snippet: '' };
  }

  const withSnippet = ({ message, snippet }) => (snippet ? `${message} (near \`${snippet}\`)` : message);

  function record(line, severity, kind, message, original = null, suggestion = null) {
    return { line, column: null, severity, kind, original, suggestion, message };
  }

  function rowDiagnostic(body, line, badgeSeverity) {
    const text = collapse(body);
    if (text.length < 2) return null;
    const arrow = text.match(/^(.+?)\s*(?:->|→|⇒)\s*(.+)$/);
    if (arrow) {
      // Spelling suggestions are advisory: 'info' unless the badge says more.
      const original = arrow[1].trim();
      const suggestion = arrow[2].trim();
      return record(line, badgeSeverity || 'info', 'spelling', `${original} → ${suggestion}`, original, suggestion);
    }
    const parts = messageAndSnippet(text);
    return record(line, badgeSeverity || guessSeverity(parts.message || text), 'typst', withSnippet(parts));
  }

  // ---------- Rows found through their line badges ----------

  function looksLikeSeveralRows(text) {
    if ((text.match(/\bline\s+\d+\b/gi) || []).length >= 2) return true;
    return regexpTest(/\bcompiler\s+(error|warning)s?\b/i, text) || regexpTest(/\bNo\s+comments\b/i, text)
      || regexpTest(/\bAdd\s+the\s+first\s+one\b/i, text) || regexpTest(/\bNo\s+spelling\s+mistakes\b/i, text)
      || (regexpTest(/\bMisspellings\b/, text) && regexpTest(/\bComments\b/, text));
  }

  // The smallest ancestor of a badge that holds message text and no other row.
  function rowOf(badge) {
    let node = badge.parentElement;
    for (let hops = 0; node && hops < 8; hops += 1, node = node.parentElement) {
      if (node.tagName === 'ASIDE' || node.tagName === 'MAIN' || node.tagName === 'BODY') break;
      const text = fullText(node);
      if (looksLikeSeveralRows(text)) break;
      if (text.replace(/\(?\s*line\s+\d+\s*\)?/gi, '').trim().length >= 4) return node;
    }
    return null;
  }

  function badgedRows(doc, cutoff) {
    const badges = queryAll(doc, 'span, div, p, small, button, a, td, strong, em, b, i').filter(element => {
      const own = ownText(element);
      return own && own.length <= 48 && regexpTest(BADGE_ONLY, own) && inSidebar(element, cutoff);
    });
    const innermost = badges.filter(badge => !badges.some(other => other !== badge && other.contains(badge)));
    const seen = new Set();
    const out = [];
    for (const badge of innermost) {
      const badgeText = ownText(badge);
      const info = readBadge(badgeText);
      const row = info && rowOf(badge);
      if (!row || seen.has(row)) continue;
      seen.add(row);
      const rowText = fullText(row);
      if (!rowText || rowText.length > 400) continue;
      const diagnostic = rowDiagnostic(withoutBadges(rowText, badgeText), info.line, info.severity);
      if (diagnostic) out.push(diagnostic);
    }
    return out;
  }

  // ---------- The compiler section of the Improve panel ----------

  function improvePanel(doc, cutoff) {
    for (const region of queryAll(doc, '[role="region"]')) {
      if (!inSidebar(region, cutoff)) continue;
      if (queryAll(region, '[role="heading"], h1, h2, h3, h4, strong').some(h => regexpTest(/^Improve$/i, ownText(h)))) return region;
    }
    return null;
  }

  // "1 compiler error", "2 compiler warnings", "1 compiler error, 2 warnings",
  // "No compiler errors"; null when the text is not such a summary.
  function compilerSummary(text) {
    const value = collapse(text);
    if (!regexpTest(/\bcompiler\b/i, value)) return null;
    let errors = regexpTest(/\bno\s+compiler\s+errors?\b/i, value) ? 0 : null;
    let warnings = regexpTest(/\bno\s+(?:compiler\s+)?warnings?\b/i, value) ? 0 : null;
    for (const match of value.matchAll(/(\d+)\s+(?:compiler\s+)?(errors?|warnings?)/gi)) {
      const count = mathMin(10000, parseInt(match[1], 10));
      if (!numberIsFinite(count)) continue;
      if (regexpTest(/^error/i, match[2])) errors = count;
      else warnings = count;
    }
    return errors == null && warnings == null ? null : { errors, warnings };
  }

  // The role="list" that follows a summary, looking a few levels up; another
  // summary in between means this group shows no details.
  function listAfter(node, panel) {
    for (let current = node, level = 0; current && current !== panel && level < 5; current = current.parentElement, level += 1) {
      for (let sibling = current.nextElementSibling; sibling; sibling = sibling.nextElementSibling) {
        if (sibling.getAttribute?.('role') === 'list') return sibling;
        if (compilerSummary(fullText(sibling))) break;
      }
    }
    return null;
  }

  function compilerGroups(panel) {
    const fromButtons = queryAll(panel, 'button')
      .map(node => ({ node, summary: compilerSummary(fullText(node)) }))
      .filter(group => group.summary);
    const groups = fromButtons.length ? fromButtons : queryAll(panel, 'p, span, div, strong')
      .map(node => ({ node, summary: compilerSummary(ownText(node)) }))
      .filter(group => group.summary);
    return groups.map(group => ({ ...group, list: listAfter(group.node, panel) }));
  }

  function cardMessage(card) {
    for (const paragraph of queryAll(card, 'p, [role="paragraph"]')) {
      const text = fullText(paragraph);
      if (text && text.length <= LIMITS.MAX_DIAGNOSTIC_MESSAGE_CHARS && !regexpTest(BADGE_ONLY, text)) return text;
    }
    return collapse(fullText(card).replace(/\bLearn how to fix this (?:error|warning)\b/gi, ' '));
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

  function compilerSection(doc, cutoff) {
    const panel = improvePanel(doc, cutoff);
    const none = { panelFound: Boolean(panel), summaryFound: false, errors: null, warnings: null, rows: [] };
    if (!panel) return none;
    // typst.app replaces every group with this sentence when nothing is wrong.
    if (queryAll(panel, 'p').some(p => regexpTest(/\bThere is nothing we can suggest at the moment\b/i, fullText(p)))) {
      return { ...none, summaryFound: true, errors: 0, warnings: 0 };
    }
    const groups = compilerGroups(panel);
    const section = { ...none, summaryFound: groups.length > 0 };
    for (const { summary, list } of groups) {
      if (summary.errors != null) section.errors = (section.errors || 0) + summary.errors;
      if (summary.warnings != null) section.warnings = (section.warnings || 0) + summary.warnings;
      for (const card of list ? queryAll(list, '[role="listitem"]') : []) {
        if (!inSidebar(card, cutoff)) continue;
        const diagnostic = cardDiagnostic(card, summary);
        if (diagnostic) section.rows.push(diagnostic);
      }
    }
    return section;
  }

  // ---------- Result ----------

  function dedupe(rows) {
    const seen = new Set();
    return rows.filter(row => {
      const key = `${row.line ?? 'project'}|${row.kind || 'typst'}|${collapse(row.message).toLowerCase().slice(0, 300)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  function placeholders(severity, reported, parsed, room) {
    if (!numberIsInteger(reported) || reported <= parsed) return [];
    const missing = mathMin(room, reported - parsed);
    const noun = reported === 1 ? severity : `${severity}s`;
    return arrayFrom({ length: mathMax(0, missing) }, (_, index) => record(null, severity, 'typst-summary',
      `The Improve panel reports ${reported} compiler ${noun}, but ${missing === 1
        ? `one ${severity}'s details are not visible`
        : `${severity} ${index + 1} of ${missing} has no visible details`}.`));
  }

  function extract(doc) {
    const cutoff = sidebarCutoff(doc);
    const section = compilerSection(doc, cutoff);
    const rows = dedupe([...badgedRows(doc, cutoff), ...section.rows]);
    const compiler = rows.filter(row => row.kind !== 'spelling' && row.kind !== 'typst-status');
    const parsedErrors = compiler.filter(row => row.severity === 'error').length;
    rows.push(...placeholders('error', section.errors, parsedErrors, MAX_ROWS - rows.length));
    const parsedWarnings = compiler.filter(row => row.severity === 'warning').length;
    rows.push(...placeholders('warning', section.warnings, parsedWarnings, MAX_ROWS - rows.length));
    if (section.panelFound && !section.summaryFound && !compiler.length) {
      rows.push(record(null, 'warning', 'typst-status',
        'The Improve panel is open, but its compiler status could not be verified. Reopen the panel and read diagnostics again.'));
    }
    return dedupe(rows);
  }

  root.__typstAgentImproveExtract = extract;
})(globalThis);
