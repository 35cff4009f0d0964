/*
 * typst.app layout reader (main world).
 *
 * Reads what the typst.app page shows around the editor: which file the header
 * breadcrumb names, the Files sidebar and its rendered tree, and the asset
 * detail panel (Path / Format / Resolution / Size) that replaces the editor
 * when an image or font is opened. The result is a plain object of facts; the
 * worker normalises and interprets it in Rust (crate `content-bridge`), so
 * nothing here is trusted beyond being a hint.
 *
 * Exposes globalThis.__typstAgentWorkspaceExtract(doc, {includeProjectTree})
 * and globalThis.__typstAgentFindFilesPanelRoot(doc).
 */
(function (root) {
  'use strict';
  // Every built-in this file calls comes from builtins.js, which took them at
  // document_start, before scripts of the page ran: a page script that later
  // replaces String.prototype.trim, Array.prototype.map, an iterator or
  // RegExp.prototype.test cannot change what is read (the rules of their use
  // are in builtins.js). Whatever this file returns is still checked and
  // rebuilt by the isolated world and read again by the worker.
  const builtins = root.__typstAgentBuiltins2;
  // The bounds the worker applies to these hints (protocol::limits, through
  // the generated protocol-constants.js, loaded before this file).
  const LIMITS = root.__typstAgentProtocolConstants?.LIMITS;
  if (!builtins || !LIMITS) return;
  const { own, pattern, exec, listFrom, listSlice, split, ToString, SafeRegExp, SafeSet, getComputedStyle } = builtins;
  const { min: mathMin, max: mathMax, abs: mathAbs } = builtins;
  const { slice, trim, toLowerCase, includes: includesText, endsWith } = builtins.string;
  const { push, pop, join, sort } = builtins.array;
  const { has: setHas, add: setAdd } = builtins.set;
  const { test: regexpTest, replace: regexpReplace } = builtins.regexp;
  const { querySelectorAll } = builtins.document;
  const { querySelectorAll: querySelectorAllIn, querySelector: querySelectorIn, getBoundingClientRect } = builtins.element;
  const { getAttribute } = builtins.element;
  const DOCUMENT_NODE = 9;

  // Extensions typst.app projects commonly hold; used to recognise file rows.
  const PROJECT_ASSET = pattern(/\.(typ(?:st)?|png|jpe?g|gif|webp|svg|pdf|ttf|otf|woff2?|eot|bib|csv|tsv|md|txt|json|toml|xml|yml|yaml|wasm)$/i);
  // Any file name: the last segment ends in an extension of 1–32 characters.
  const FILE_NAME = pattern(/\.[a-z0-9][a-z0-9+_-]{0,31}$/i);
  const CRUMB_SEPARATORS = pattern(/\s*[>›❯»]\s*/g);
  const SEPARATOR_ONLY = pattern(/^[>›❯»/|]+$/);
  const WHITESPACE_RUNS = pattern(/\s+/g);
  const ANGLE_BRACKET = pattern(/[<>]/);
  const BACKSLASHES = pattern(/\\/g);
  const LEADING_DOT_SLASHES = pattern(/^\.\/+/);
  const LEADING_SLASHES = pattern(/^\/+/);
  const SLASH_RUNS = pattern(/\/{2,}/g);
  const URL_SCHEME = pattern(/^[a-z][a-z0-9+.-]*:/i);
  const LINE_BREAK_OR_NUL = pattern(/[\0\r\n]/);
  const PATH_ATTRIBUTES = ['data-path', 'data-file', 'data-relpath', 'title'];
  const MAX_TREE_ENTRIES = LIMITS.MAX_PROJECT_TREE_ENTRIES;
  const MAX_TREE_DEPTH = LIMITS.MAX_PROJECT_TREE_DEPTH;
  const MAX_TREE_PATH = LIMITS.MAX_PROJECT_TREE_PATH_CHARS;

  function inlineText(value, max = 240) {
    return typeof value === 'string' ? slice(regexpReplace(WHITESPACE_RUNS, trim(value), ' '), 0, max) : '';
  }

  // `list`'s items as inline texts, empty ones left out.
  function inlineTexts(list, max) {
    const texts = [];
    for (let index = 0; index < list.length; index += 1) {
      const text = inlineText(list[index], max);
      if (text) push(texts, text);
    }
    return texts;
  }

  // `list`'s non-empty items (Array.prototype.filter(Boolean) by index).
  function nonEmpty(list) {
    const kept = [];
    for (let index = 0; index < list.length; index += 1) if (list[index]) push(kept, list[index]);
    return kept;
  }

  function pushAll(target, items) {
    for (let index = 0; index < items.length; index += 1) push(target, items[index]);
    return target;
  }

  function queryAll(scope, selector) {
    if (!scope) return [];
    try {
      return listFrom(scope.nodeType === DOCUMENT_NODE
        ? querySelectorAll(scope, selector) : querySelectorAllIn(scope, selector));
    } catch {
      return [];
    }
  }

  function queryOne(scope, selector) {
    try {
      return querySelectorIn(scope, selector);
    } catch {
      return null;
    }
  }

  // An element's attribute, or null when `node` is no element.
  function attributeOf(node, name) {
    if (!node) return null;
    try {
      return getAttribute(node, name);
    } catch {
      return null;
    }
  }

  // `(value || '')` trimmed.
  const trimmed = value => trim(value || '');

  function rectOf(element) {
    if (!element) return null;
    try {
      return getBoundingClientRect(element) || null;
    } catch {
      return null;
    }
  }

  function viewport(doc) {
    const win = doc.defaultView || root;
    return { width: win.innerWidth || 1600, height: win.innerHeight || 900, win };
  }

  // A clean project-relative file path, or null. The worker applies the same
  // rules again (protocol::active_file); here they only decide which
  // candidate is usable.
  function filePath(value) {
    if (typeof value !== 'string') return null;
    let path = regexpReplace(BACKSLASHES, trim(value), '/');
    path = regexpReplace(LEADING_DOT_SLASHES, path, '');
    path = regexpReplace(SLASH_RUNS, regexpReplace(LEADING_SLASHES, path, ''), '/');
    if (!path || path.length > LIMITS.MAX_PROJECT_PATH_CHARS || regexpTest(URL_SCHEME, path)) return null;
    const segments = split(path, '/');
    for (let index = 0; index < segments.length; index += 1) {
      const segment = trim(segments[index]);
      if (!segment || segment === '.' || segment === '..' || regexpTest(LINE_BREAK_OR_NUL, segment)) return null;
      segments[index] = segment;
    }
    return regexpTest(FILE_NAME, segments[segments.length - 1]) ? join(segments, '/') : null;
  }

  function fileRecord(path, projectLabel, source, confidence) {
    const relativePath = filePath(path);
    if (!relativePath) return null;
    return {
      projectLabel: inlineText(projectLabel, LIMITS.MAX_PROJECT_LABEL_CHARS) || null,
      relativePath,
      basename: pop(split(relativePath, '/')),
      source,
      confidence
    };
  }

  function declaredPathNear(element) {
    for (let node = element, depth = 0; node && depth < 8; node = node.parentElement, depth += 1) {
      for (let index = 0; index < PATH_ATTRIBUTES.length; index += 1) {
        const path = filePath(attributeOf(node, PATH_ATTRIBUTES[index]));
        if (path) return path;
      }
    }
    return null;
  }

  // ---------- Active editor file ----------

  // The header band at the top of the window where typst.app puts
  // "account › project › folder › file". Containers must also be small.
  function inHeaderBand(element, doc, asContainer) {
    const rect = rectOf(element);
    if (!rect || rect.width < 2 || rect.height < 2) return false;
    if (rect.top < -12 || rect.top > 112 || rect.bottom > 132) return false;
    if (asContainer && (rect.width > mathMin(1100, viewport(doc).width * 0.82) || rect.height > 100)) return false;
    return true;
  }

  const CRUMB_PARTS = 'a, button, span, strong, b, [role="link"], [role="button"], [aria-current]';

  // The breadcrumb's visible segments: the innermost texts under `container`,
  // or the container's own text split on separators when it has them.
  function breadcrumbSegments(container) {
    const segments = [];
    const nodes = pushAll([container], queryAll(container, CRUMB_PARTS));
    for (let index = 0; index < nodes.length; index += 1) {
      const node = nodes[index];
      const text = inlineText(node?.textContent, 180);
      if (!text || regexpTest(SEPARATOR_ONLY, text)) continue;
      const children = listFrom(node.children);
      let repeatedByChild = false;
      for (let child = 0; child < children.length && !repeatedByChild; child += 1) {
        repeatedByChild = inlineText(children[child].textContent, 180) === text;
      }
      if (repeatedByChild) continue;
      const pieces = inlineTexts(split(text, CRUMB_SEPARATORS), 160);
      if (node === container) {
        if (pieces.length > 1) return listSlice(pieces, 0, 16);
        if (children.length > 0) continue;
      }
      for (let piece = 0; piece < pieces.length; piece += 1) {
        if (segments[segments.length - 1] !== pieces[piece]) push(segments, pieces[piece]);
      }
    }
    return listSlice(segments, 0, 16);
  }

  // Segments up to the last one that looks like a file. typst.app shows
  // account › project › folders… › file; the account is not part of the path.
  function fileFromSegments(segments, source, confidence) {
    const clean = inlineTexts(segments, 160);
    let fileIndex = clean.length - 1;
    while (fileIndex >= 0 && !regexpTest(FILE_NAME, clean[fileIndex])) fileIndex -= 1;
    if (fileIndex < 0) return null;
    const crumbs = listSlice(clean, 0, fileIndex + 1);
    if (crumbs.length === 1) return fileRecord(crumbs[0], null, source, 'medium');
    if (crumbs.length === 2) return fileRecord(crumbs[1], crumbs[0], source, confidence);
    return fileRecord(join(listSlice(crumbs, 2), '/'), crumbs[1], source, confidence);
  }

  const HEADING_CONTAINERS = 'header [role="heading"][aria-level="1"], [role="banner"] [role="heading"][aria-level="1"], header h1, [role="banner"] h1';
  const HEADER_CANDIDATES = 'a, button, span, strong, b, [role="link"], [role="button"], [aria-current], [data-path], [data-file], [data-relpath]';

  // A header text that names a file (and is no markup).
  const namesFile = text => text && regexpTest(FILE_NAME, text) && !regexpTest(ANGLE_BRACKET, text);

  function fileFromHeader(doc) {
    const containers = queryAll(doc, HEADING_CONTAINERS);
    for (let index = 0; index < containers.length; index += 1) {
      if (!inHeaderBand(containers[index], doc, true)) continue;
      const record = fileFromSegments(breadcrumbSegments(containers[index]), 'header_breadcrumb', 'high');
      if (record) return record;
    }
    // No semantic heading: file-like texts in the header band, nearest to the
    // horizontal centre first.
    const centre = viewport(doc).width / 2;
    const candidates = [];
    const elements = queryAll(doc, HEADER_CANDIDATES);
    for (let index = 0; index < elements.length; index += 1) {
      const element = elements[index];
      const text = inlineText(element.textContent, 220);
      if (!namesFile(text) || !inHeaderBand(element, doc, false)) continue;
      const rect = rectOf(element);
      push(candidates, { element, text, distance: mathAbs((rect.left + rect.right) / 2 - centre) });
    }
    sort(candidates, (a, b) => a.distance - b.distance);
    let basenameOnly = null;
    for (let index = 0; index < candidates.length && index < 12; index += 1) {
      const { element, text } = candidates[index];
      const declared = declaredPathNear(element);
      if (declared) return fileRecord(declared, null, 'header_declared_path', 'high');
      for (let node = element, depth = 0; node && node !== doc.body && depth < 9; node = node.parentElement, depth += 1) {
        if (!inHeaderBand(node, doc, true)) continue;
        const record = fileFromSegments(breadcrumbSegments(node), 'header_breadcrumb', 'high');
        if (record && includesText(record.relativePath, '/')) return record;
        if (record && !basenameOnly) basenameOnly = record;
      }
      if (!basenameOnly) basenameOnly = fileRecord(text, null, 'header_filename', 'medium');
    }
    return basenameOnly;
  }

  // "<project> – <file> – Typst"
  const TITLE = pattern(/^(.+?)\s+[–—-]\s+(.+?)\s+[–—-]\s+Typst$/i);

  function fileFromTitle(doc) {
    const match = exec(TITLE, inlineText(doc.title, 400));
    return match ? fileRecord(match[2], match[1], 'document_title', 'medium') : null;
  }

  const SELECTED_ROWS = '[aria-selected="true"], [aria-current="page"], [aria-current="true"], button[class*="_active_"], [role="treeitem"][class*="_active_"]';

  function fileFromSelectedRow(doc, filesRoot) {
    const rows = queryAll(filesRoot || doc, SELECTED_ROWS);
    for (let index = 0; index < rows.length; index += 1) {
      const declared = declaredPathNear(rows[index]);
      if (declared) return fileRecord(declared, null, 'selected_tree_path', 'high');
      const text = inlineText(rows[index].textContent, 220);
      if (namesFile(text)) return fileRecord(text, null, 'selected_tree_filename', 'medium');
    }
    return null;
  }

  const CRUMB_MARKS = pattern(/[›❯»]/g);
  const CRUMB_TEXT = pattern(/([^>]{1,160})>\s*((?:[^>]{1,160}>\s*)*?[^>]{1,160}\.[a-z0-9][a-z0-9+_-]{0,31})(?=\s|$)/ig);

  function fileFromBodyText(bodyText) {
    const compact = regexpReplace(WHITESPACE_RUNS, regexpReplace(CRUMB_MARKS, ToString(bodyText || ''), '>'), ' ');
    // String.prototype.matchAll's matches, one at a time (none is empty).
    CRUMB_TEXT.lastIndex = 0;
    for (let match = exec(CRUMB_TEXT, compact); match; match = exec(CRUMB_TEXT, compact)) {
      const head = pop(nonEmpty(split(inlineText(match[1], 160), WHITESPACE_RUNS)));
      const segments = pushAll([head], inlineTexts(split(match[2], '>'), 160));
      const record = fileFromSegments(segments, 'body_breadcrumb', 'medium');
      if (record) return record;
    }
    return null;
  }

  // A bare file name becomes a full path when exactly one declared path on
  // the page ends in it.
  function widenToDeclaredPath(record, declaredPaths) {
    if (!record || includesText(record.relativePath, '/')) return record;
    const suffix = `/${record.basename}`;
    const matches = [];
    for (let index = 0; index < declaredPaths.length; index += 1) {
      const path = filePath(declaredPaths[index]);
      if (path && (path === record.basename || endsWith(path, suffix))) push(matches, path);
    }
    return matches.length === 1 ? fileRecord(matches[0], record.projectLabel, 'unique_declared_path', 'high') : record;
  }

  const SHORT_EXTENSION = pattern(/\.[a-z0-9]{2,8}$/i);

  function focusedFileHint(doc) {
    let node = doc.activeElement;
    for (let depth = 0; depth < 10 && node && node !== doc.body; depth += 1, node = node.parentElement) {
      const text = trimmed(node.textContent);
      if (!text || text.length >= 200) continue;
      const last = pop(nonEmpty(split(text, WHITESPACE_RUNS))) || '';
      if (regexpTest(SHORT_EXTENSION, last) && includesText(last, '.')) return last;
    }
    return null;
  }

  const WEB_ADDRESS = pattern(/^https?:/i);
  const DOT_OR_SLASH = pattern(/[./]/);

  function declaredPathsIn(filesRoot, doc) {
    const seen = new SafeSet();
    const found = [];
    const scan = scope => {
      const elements = queryAll(scope, '[data-path], [data-file], [data-relpath], [title]');
      for (let index = 0; index < elements.length; index += 1) {
        for (let which = 0; which < PATH_ATTRIBUTES.length; which += 1) {
          const attribute = PATH_ATTRIBUTES[which];
          const raw = attributeOf(elements[index], attribute);
          if (typeof raw !== 'string') continue;
          const value = regexpReplace(BACKSLASHES, trim(raw), '/');
          if (value.length < 4 || value.length > 400 || regexpTest(WEB_ADDRESS, value) || !regexpTest(PROJECT_ASSET, value)) continue;
          if (attribute === 'title' && !regexpTest(DOT_OR_SLASH, value)) continue;
          if (setHas(seen, value)) continue;
          setAdd(seen, value);
          push(found, value);
        }
      }
    };
    scan(filesRoot);
    if (found.length < 3) scan(doc.body);
    return listSlice(found, 0, 40);
  }

  // ---------- Files sidebar ----------

  function isShown(element, doc) {
    if (!element) return false;
    const { width, height } = viewport(doc);
    for (let node = element, depth = 0; node && depth < 12; node = node.parentElement, depth += 1) {
      if (node.hidden || attributeOf(node, 'aria-hidden') === 'true') return false;
      try {
        const style = getComputedStyle(node);
        if (style && (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse')) return false;
      } catch {
        // Geometry below still decides.
      }
    }
    const rect = rectOf(element);
    return !!(rect && rect.width > 1 && rect.height > 1
      && rect.right > 0 && rect.bottom > 0 && rect.left < width && rect.top < height);
  }

  const FILES_LABEL = pattern(/^files$/i);

  function findFilesRoot(doc) {
    const regions = queryAll(doc, '[role="region"]');
    for (let index = 0; index < regions.length; index += 1) {
      const heading = queryOne(regions[index], '[role="heading"], h1, h2, h3, h4, strong');
      if (regexpTest(FILES_LABEL, inlineText(heading?.textContent, 24)) && isShown(regions[index], doc)) return regions[index];
    }
    // Without a labelled region: a short "Files" label inside a narrow, tall
    // left column whose text mentions project files.
    const { width } = viewport(doc);
    const labels = queryAll(doc, 'span, div, h1, h2, h3, h4, button, p, label');
    for (let index = 0; index < labels.length; index += 1) {
      const text = trimmed(labels[index].textContent);
      if (text.length > 24 || !regexpTest(FILES_LABEL, text)) continue;
      let node = labels[index].parentElement;
      for (let depth = 0; depth < 14 && node && node !== doc.body; depth += 1, node = node.parentElement) {
        const column = slice(node.innerText || '', 0, 12000);
        if (!regexpTest(PROJECT_ASSET, column) || column.length > 20000) continue;
        const rect = rectOf(node);
        const noLayout = !rect || (rect.width <= 1 && rect.height <= 1);
        const leftColumn = rect && rect.width >= 60 && rect.width <= width * 0.48 && rect.height >= 40 && rect.left <= width * 0.34;
        if ((leftColumn || (noLayout && depth < 8)) && isShown(node, doc)) return node;
      }
    }
    return null;
  }

  // The first child of `row` that `wanted` accepts, or null.
  function childWhere(row, wanted) {
    const children = listFrom(row?.children);
    for (let index = 0; index < children.length; index += 1) if (wanted(children[index])) return children[index];
    return null;
  }

  function treeRows(list) {
    const children = listFrom(list?.children);
    const rows = [];
    for (let index = 0; index < children.length; index += 1) {
      const child = children[index];
      if (child.tagName === 'LI' || attributeOf(child, 'role') === 'treeitem') push(rows, child);
    }
    return rows;
  }

  const nestedList = row => childWhere(row, child => {
    const role = attributeOf(child, 'role');
    return child.tagName === 'UL' || role === 'group' || role === 'tree';
  });

  const rowButton = row => childWhere(row, child => child.tagName === 'BUTTON')
    || (attributeOf(row, 'role') === 'treeitem' ? row : null);

  const MOVE_TO = pattern(/[Mm]/g);
  const CURVE = pattern(/[Cc]/);
  const HORIZONTAL = pattern(/[Hh]/);
  const VERTICAL = pattern(/[Vv]/);
  const CLOSED = pattern(/[Zz]\s*$/);

  // typst.app draws a closed folder as one closed outline with curves and
  // straight edges; anything else (or a changed icon) stays unclassified
  // rather than being guessed as a file.
  function closedFolderIcon(button) {
    const svg = queryAll(button, 'svg')[0];
    if (!svg || queryAll(svg, 'rect, circle, ellipse, line, polyline, polygon').length) return false;
    const paths = queryAll(svg, 'path');
    if (paths.length !== 1) return false;
    const drawing = attributeOf(paths[0], 'd') || '';
    return builtins.matchAll(MOVE_TO, drawing).length === 1
      && regexpTest(CURVE, drawing) && regexpTest(HORIZONTAL, drawing) && regexpTest(VERTICAL, drawing) && regexpTest(CLOSED, drawing);
  }

  const NOT_IN_NAME = pattern(/[\\/\0\r\n]/);

  function entryName(value) {
    const name = inlineText(value, LIMITS.MAX_PROJECT_TREE_SEGMENT_CHARS);
    return !name || name === '.' || name === '..' || regexpTest(NOT_IN_NAME, name) ? null : name;
  }

  function readProjectTree(filesRoot) {
    if (!filesRoot) return null;
    const lists = [];
    if (filesRoot.tagName === 'UL' || attributeOf(filesRoot, 'role') === 'tree') push(lists, filesRoot);
    pushAll(lists, queryAll(filesRoot, 'ul, [role="tree"]'));
    let top = null;
    for (let index = 0; index < lists.length && !top; index += 1) if (treeRows(lists[index]).length > 0) top = lists[index];
    if (!top) return null;
    const entries = [];
    let truncated = false;
    const walk = (list, parent, depth) => {
      if (depth > MAX_TREE_DEPTH) {
        truncated = true;
        return;
      }
      const rows = treeRows(list);
      for (let index = 0; index < rows.length; index += 1) {
        if (entries.length >= MAX_TREE_ENTRIES) {
          truncated = true;
          return;
        }
        const button = rowButton(rows[index]);
        const name = entryName(button?.innerText || button?.textContent);
        if (!name) {
          truncated = true;
          continue;
        }
        const path = parent ? `${parent}/${name}` : name;
        if (path.length > MAX_TREE_PATH) {
          truncated = true;
          continue;
        }
        const children = nestedList(rows[index]);
        if (children || closedFolderIcon(button)) {
          push(entries, { path, kind: 'folder', state: children ? 'expanded' : 'collapsed' });
          if (children) walk(children, path, depth + 1);
        } else {
          push(entries, { path, kind: regexpTest(FILE_NAME, name) ? 'file' : 'unknown' });
        }
      }
    };
    walk(top, '', 0);
    return entries.length ? { source: 'files_panel_dom', entries, truncated } : null;
  }

  // ---------- Asset detail panel ----------

  function labelledValue(bodyText, label) {
    const match = exec(pattern(new SafeRegExp(`${label}:\\s*\\n?\\s*([^\\n\\r]+)`, 'i')), bodyText);
    return match ? trim(match[1]) : null;
  }

  const PATH_LABEL = pattern(/^path\s*:?$/i);
  const PATH_WORD = pattern(/^path$/i);
  const PATH_MARKS = pattern(/[./\\]/);
  const PATH_IN_ROW = pattern(/Path\s*:?\s*([^\s].*?)(?:\s+(?:Format|Resolution|Size)\s*:)|$/i);

  function pathFromLabels(doc) {
    const elements = queryAll(doc, 'dt, th, td, span, label, div, p, button');
    for (let index = 0; index < elements.length; index += 1) {
      const element = elements[index];
      const text = trimmed(element.textContent);
      if (!regexpTest(PATH_LABEL, text)) continue;
      const next = trimmed(element.nextElementSibling?.textContent);
      if (next.length > 2 && next.length < 400 && regexpTest(PATH_MARKS, next) && !regexpTest(PATH_WORD, next)) return next;
      const row = regexpReplace(WHITESPACE_RUNS, element.parentElement?.textContent || '', ' ');
      const match = exec(PATH_IN_ROW, row);
      const value = match && typeof match[1] === 'string' ? trim(match[1]) : undefined;
      if (value && value.length > 2 && value.length < 400) return value;
    }
    return null;
  }

  const IMAGE_CRUMB = pattern(/>\s*images\s*>\s*([^\s>]+)/i);
  const FONT_CRUMB = pattern(/>\s*fonts\s*>\s*([^<\n\r]+?\.(?:ttf|otf|woff2?))\b/i);
  const NESTED_CRUMB = pattern(/>\s*([\w.-]+(?:\/[\w.-]+)*\/[^\s>]+\.(?:png|jpe?g|gif|webp|svg|pdf|ttf|otf|woff2?))\b/i);

  function pathFromCrumbText(bodyText, focusedName) {
    const text = regexpReplace(WHITESPACE_RUNS, bodyText, ' ');
    const image = exec(IMAGE_CRUMB, text);
    if (image && image[1] && (!focusedName || toLowerCase(trim(image[1])) === toLowerCase(focusedName))) {
      return `images/${trim(image[1])}`;
    }
    const font = exec(FONT_CRUMB, text);
    if (font && font[1] && trim(font[1])) return `fonts/${regexpReplace(LEADING_SLASHES, trim(font[1]), '')}`;
    const nested = exec(NESTED_CRUMB, text);
    return (nested && nested[1] && trim(nested[1])) || null;
  }

  function largestCanvasArea(doc) {
    let largest = 0;
    const canvases = queryAll(doc, 'canvas');
    for (let index = 0; index < canvases.length; index += 1) {
      largest = mathMax(largest, (canvases[index].width || 0) * (canvases[index].height || 0));
    }
    return largest;
  }

  const IMAGE_FILE = pattern(/\.(png|jpe?g|gif|webp|svg|ico|bmp|tiff?)$/i);
  const FONT_FILE = pattern(/\.(ttf|otf|woff2?|eot)$/i);
  const OTHER_BINARY_FILE = pattern(/\.(pdf|zip|tar|gz|wasm)$/i);
  const TYPST_FILE = pattern(/\.typ(st)?$/i);
  const IMAGE_FORMAT = pattern(/^(PNG|JPEG|JPG|GIF|WebP|SVG|BMP|TIFF?)/i);
  const RESOLUTION = pattern(/\d+\s*[x×]\s*\d+/);
  const FONT_FORMAT = pattern(/^(TrueType|OpenType|OTF|TTF|WOFF2?|WOFF|Variable\s+Font)/i);
  const FOCUSED_ASSET = pattern(/\.(png|jpe?g|gif|webp|svg|pdf|ttf|otf|woff2?)$/i);

  function previewKind(detailPath, canvasArea, format, resolution, size) {
    if (detailPath) {
      if (regexpTest(IMAGE_FILE, detailPath)) return 'binary_image_asset';
      if (regexpTest(FONT_FILE, detailPath)) return 'font_binary_asset';
      if (regexpTest(OTHER_BINARY_FILE, detailPath)) return 'binary_other_asset';
      if (regexpTest(TYPST_FILE, detailPath)) return 'typst_source_file';
      return 'file_asset_detail';
    }
    const formatText = trimmed(format);
    if (formatText && resolution && regexpTest(IMAGE_FORMAT, formatText) && regexpTest(RESOLUTION, resolution)) {
      return 'binary_image_asset';
    }
    if (formatText && size && regexpTest(FONT_FORMAT, formatText)) return 'font_binary_asset';
    return canvasArea > 120000 ? 'typst_document_render' : 'unknown_layout';
  }

  // ---------- Result ----------

  function extract(doc, options = {}) {
    const bodyText = doc.body?.innerText || '';
    const pathFromBody = labelledValue(bodyText, 'Path');
    let detailPath = pathFromBody || pathFromLabels(doc);
    let detailPathSource = pathFromBody ? 'body_text' : detailPath ? 'dom' : null;
    const focusedHint = focusedFileHint(doc);
    if (!detailPath) {
      const fromCrumbs = pathFromCrumbText(bodyText, focusedHint);
      if (fromCrumbs) {
        detailPath = fromCrumbs;
        detailPathSource = 'breadcrumb';
      } else if (focusedHint && regexpTest(FOCUSED_ASSET, focusedHint)) {
        detailPath = focusedHint;
        detailPathSource = 'focused_filename';
      }
    }
    const format = labelledValue(bodyText, 'Format');
    const resolution = labelledValue(bodyText, 'Resolution');
    const size = labelledValue(bodyText, 'Size');
    const canvasArea = largestCanvasArea(doc);

    const filesRoot = findFilesRoot(doc);
    const activeFile = widenToDeclaredPath(
      fileFromHeader(doc) || fileFromTitle(doc) || fileFromSelectedRow(doc, filesRoot) || fileFromBodyText(bodyText)
        || (focusedHint && regexpTest(FILE_NAME, focusedHint) ? fileRecord(focusedHint, null, 'focused_element', 'low') : null),
      declaredPathsIn(filesRoot, doc)
    );

    const result = {
      preview_kind: previewKind(detailPath, canvasArea, format, resolution, size),
      detail_path: detailPath,
      detail_path_source: detailPathSource,
      detail_format: format,
      detail_resolution: resolution,
      detail_size: size,
      detail_last_changed: labelledValue(bodyText, 'Last changed'),
      canvas_max_pixel_area: canvasArea,
      active_editor_file: activeFile,
      files_panel_open: !!filesRoot,
      focused_element_file_hint: focusedHint
    };
    // Read by own property: a page script's Object.prototype cannot turn
    // the tree off; the tree is added as a data property of the result.
    if (own(options, 'includeProjectTree') !== false) {
      const tree = readProjectTree(filesRoot);
      if (tree) return { ...result, project_file_tree: tree };
    }
    return result;
  }

  root.__typstAgentFindFilesPanelRoot = findFilesRoot;
  root.__typstAgentWorkspaceExtract = extract;
})(globalThis);
