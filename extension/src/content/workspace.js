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
  // Built-ins this file calls, taken while it loads (document_start, before
  // scripts of the page run): a page script that later replaces Array.from,
  // Math.min or RegExp.prototype.test cannot change what is read. Whatever
  // this file returns is still checked and rebuilt by the isolated world and
  // read again by the worker.
  const uncurryThis = Function.prototype.call.bind(Function.prototype.bind, Function.prototype.call);
  const arrayFrom = Array.from;
  const { min: mathMin, max: mathMax, abs: mathAbs } = Math;
  const regexpTest = uncurryThis(RegExp.prototype.test);
  // The bounds the worker applies to these hints (protocol::limits, through
  // the generated protocol-constants.js, loaded before this file).
  const LIMITS = root.__typstAgentProtocolConstants?.LIMITS;
  if (!LIMITS) return;

  // Extensions typst.app projects commonly hold; used to recognise file rows.
  const PROJECT_ASSET = /\.(typ(?:st)?|png|jpe?g|gif|webp|svg|pdf|ttf|otf|woff2?|eot|bib|csv|tsv|md|txt|json|toml|xml|yml|yaml|wasm)$/i;
  // Any file name: the last segment ends in an extension of 1–32 characters.
  const FILE_NAME = /\.[a-z0-9][a-z0-9+_-]{0,31}$/i;
  const CRUMB_SEPARATORS = /\s*[>›❯»]\s*/;
  const SEPARATOR_ONLY = /^[>›❯»/|]+$/;
  const PATH_ATTRIBUTES = ['data-path', 'data-file', 'data-relpath', 'title'];
  const MAX_TREE_ENTRIES = LIMITS.MAX_PROJECT_TREE_ENTRIES;
  const MAX_TREE_DEPTH = LIMITS.MAX_PROJECT_TREE_DEPTH;
  const MAX_TREE_PATH = LIMITS.MAX_PROJECT_TREE_PATH_CHARS;

  function inlineText(value, max = 240) {
    return typeof value === 'string' ? value.trim().replace(/\s+/g, ' ').slice(0, max) : '';
  }

  function queryAll(scope, selector) {
    try {
      return arrayFrom(scope?.querySelectorAll?.(selector) || []);
    } catch {
      return [];
    }
  }

  function rectOf(element) {
    try {
      return element?.getBoundingClientRect?.() || null;
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
    const path = value.trim().replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/^\/+/, '').replace(/\/{2,}/g, '/');
    if (!path || path.length > LIMITS.MAX_PROJECT_PATH_CHARS || regexpTest(/^[a-z][a-z0-9+.-]*:/i, path)) return null;
    const segments = path.split('/').map(segment => segment.trim());
    if (segments.some(segment => !segment || segment === '.' || segment === '..' || regexpTest(/[\0\r\n]/, segment))) return null;
    return regexpTest(FILE_NAME, segments[segments.length - 1]) ? segments.join('/') : null;
  }

  function fileRecord(path, projectLabel, source, confidence) {
    const relativePath = filePath(path);
    if (!relativePath) return null;
    return {
      projectLabel: inlineText(projectLabel, LIMITS.MAX_PROJECT_LABEL_CHARS) || null,
      relativePath,
      basename: relativePath.split('/').pop(),
      source,
      confidence
    };
  }

  function declaredPathNear(element) {
    for (let node = element, depth = 0; node && depth < 8; node = node.parentElement, depth += 1) {
      for (const attribute of PATH_ATTRIBUTES) {
        const path = filePath(node.getAttribute?.(attribute));
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
    for (const node of [container, ...queryAll(container, CRUMB_PARTS)]) {
      const text = inlineText(node?.textContent, 180);
      if (!text || regexpTest(SEPARATOR_ONLY, text)) continue;
      const children = arrayFrom(node.children || []);
      if (children.some(child => inlineText(child.textContent, 180) === text)) continue;
      const pieces = text.split(CRUMB_SEPARATORS).map(piece => inlineText(piece, 160)).filter(Boolean);
      if (node === container) {
        if (pieces.length > 1) return pieces.slice(0, 16);
        if (children.length > 0) continue;
      }
      for (const piece of pieces) {
        if (segments[segments.length - 1] !== piece) segments.push(piece);
      }
    }
    return segments.slice(0, 16);
  }

  // Segments up to the last one that looks like a file. typst.app shows
  // account › project › folders… › file; the account is not part of the path.
  function fileFromSegments(segments, source, confidence) {
    const clean = segments.map(segment => inlineText(segment, 160)).filter(Boolean);
    let fileIndex = clean.length - 1;
    while (fileIndex >= 0 && !regexpTest(FILE_NAME, clean[fileIndex])) fileIndex -= 1;
    if (fileIndex < 0) return null;
    const crumbs = clean.slice(0, fileIndex + 1);
    if (crumbs.length === 1) return fileRecord(crumbs[0], null, source, 'medium');
    if (crumbs.length === 2) return fileRecord(crumbs[1], crumbs[0], source, confidence);
    return fileRecord(crumbs.slice(2).join('/'), crumbs[1], source, confidence);
  }

  const HEADING_CONTAINERS = 'header [role="heading"][aria-level="1"], [role="banner"] [role="heading"][aria-level="1"], header h1, [role="banner"] h1';
  const HEADER_CANDIDATES = 'a, button, span, strong, b, [role="link"], [role="button"], [aria-current], [data-path], [data-file], [data-relpath]';

  function fileFromHeader(doc) {
    for (const container of queryAll(doc, HEADING_CONTAINERS)) {
      if (!inHeaderBand(container, doc, true)) continue;
      const record = fileFromSegments(breadcrumbSegments(container), 'header_breadcrumb', 'high');
      if (record) return record;
    }
    // No semantic heading: file-like texts in the header band, nearest to the
    // horizontal centre first.
    const centre = viewport(doc).width / 2;
    const candidates = [];
    for (const element of queryAll(doc, HEADER_CANDIDATES)) {
      const text = inlineText(element.textContent, 220);
      if (!text || !regexpTest(FILE_NAME, text) || regexpTest(/[<>]/, text) || !inHeaderBand(element, doc, false)) continue;
      const rect = rectOf(element);
      candidates.push({ element, text, distance: mathAbs((rect.left + rect.right) / 2 - centre) });
    }
    candidates.sort((a, b) => a.distance - b.distance);
    let basenameOnly = null;
    for (const { element, text } of candidates.slice(0, 12)) {
      const declared = declaredPathNear(element);
      if (declared) return fileRecord(declared, null, 'header_declared_path', 'high');
      for (let node = element, depth = 0; node && node !== doc.body && depth < 9; node = node.parentElement, depth += 1) {
        if (!inHeaderBand(node, doc, true)) continue;
        const record = fileFromSegments(breadcrumbSegments(node), 'header_breadcrumb', 'high');
        if (record?.relativePath.includes('/')) return record;
        if (record && !basenameOnly) basenameOnly = record;
      }
      if (!basenameOnly) basenameOnly = fileRecord(text, null, 'header_filename', 'medium');
    }
    return basenameOnly;
  }

  // "<project> – <file> – Typst"
  function fileFromTitle(doc) {
    const match = inlineText(doc.title, 400).match(/^(.+?)\s+[–—-]\s+(.+?)\s+[–—-]\s+Typst$/i);
    return match ? fileRecord(match[2], match[1], 'document_title', 'medium') : null;
  }

  const SELECTED_ROWS = '[aria-selected="true"], [aria-current="page"], [aria-current="true"], button[class*="_active_"], [role="treeitem"][class*="_active_"]';

  function fileFromSelectedRow(doc, filesRoot) {
    for (const element of queryAll(filesRoot || doc, SELECTED_ROWS)) {
      const declared = declaredPathNear(element);
      if (declared) return fileRecord(declared, null, 'selected_tree_path', 'high');
      const text = inlineText(element.textContent, 220);
      if (text && regexpTest(FILE_NAME, text) && !regexpTest(/[<>]/, text)) {
        return fileRecord(text, null, 'selected_tree_filename', 'medium');
      }
    }
    return null;
  }

  function fileFromBodyText(bodyText) {
    const compact = String(bodyText || '').replace(/[›❯»]/g, '>').replace(/\s+/g, ' ');
    const crumb = /([^>]{1,160})>\s*((?:[^>]{1,160}>\s*)*?[^>]{1,160}\.[a-z0-9][a-z0-9+_-]{0,31})(?=\s|$)/ig;
    for (const match of compact.matchAll(crumb)) {
      const head = inlineText(match[1], 160).split(/\s+/).filter(Boolean).pop();
      const tail = match[2].split('>').map(part => inlineText(part, 160)).filter(Boolean);
      const record = fileFromSegments([head, ...tail], 'body_breadcrumb', 'medium');
      if (record) return record;
    }
    return null;
  }

  // A bare file name becomes a full path when exactly one declared path on
  // the page ends in it.
  function widenToDeclaredPath(record, declaredPaths) {
    if (!record || record.relativePath.includes('/')) return record;
    const suffix = `/${record.basename}`;
    const matches = declaredPaths.map(filePath).filter(path => path && (path === record.basename || path.endsWith(suffix)));
    return matches.length === 1 ? fileRecord(matches[0], record.projectLabel, 'unique_declared_path', 'high') : record;
  }

  function focusedFileHint(doc) {
    let node = doc.activeElement;
    for (let depth = 0; depth < 10 && node && node !== doc.body; depth += 1, node = node.parentElement) {
      const text = (node.textContent || '').trim();
      if (!text || text.length >= 200) continue;
      const last = text.split(/\s+/).filter(Boolean).pop() || '';
      if (regexpTest(/\.[a-z0-9]{2,8}$/i, last) && last.includes('.')) return last;
    }
    return null;
  }

  function declaredPathsIn(filesRoot, doc) {
    const found = new Set();
    const scan = scope => {
      for (const element of queryAll(scope, '[data-path], [data-file], [data-relpath], [title]')) {
        for (const attribute of PATH_ATTRIBUTES) {
          const raw = element.getAttribute?.(attribute);
          if (typeof raw !== 'string') continue;
          const value = raw.trim().replace(/\\/g, '/');
          if (value.length < 4 || value.length > 400 || regexpTest(/^https?:/i, value) || !regexpTest(PROJECT_ASSET, value)) continue;
          if (attribute === 'title' && !regexpTest(/[./]/, value)) continue;
          found.add(value);
        }
      }
    };
    scan(filesRoot);
    if (found.size < 3) scan(doc.body);
    return [...found].slice(0, 40);
  }

  // ---------- Files sidebar ----------

  function isShown(element, doc) {
    if (!element) return false;
    const { win, width, height } = viewport(doc);
    for (let node = element, depth = 0; node && depth < 12; node = node.parentElement, depth += 1) {
      if (node.hidden || node.getAttribute?.('aria-hidden') === 'true') return false;
      try {
        const style = win.getComputedStyle?.(node);
        if (style && (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse')) return false;
      } catch {
        // Geometry below still decides.
      }
    }
    if (typeof element.getBoundingClientRect !== 'function') return true;
    const rect = rectOf(element);
    return Boolean(rect && rect.width > 1 && rect.height > 1
      && rect.right > 0 && rect.bottom > 0 && rect.left < width && rect.top < height);
  }

  function findFilesRoot(doc) {
    for (const region of queryAll(doc, '[role="region"]')) {
      const heading = region.querySelector?.('[role="heading"], h1, h2, h3, h4, strong');
      if (regexpTest(/^files$/i, inlineText(heading?.textContent, 24)) && isShown(region, doc)) return region;
    }
    // Without a labelled region: a short "Files" label inside a narrow, tall
    // left column whose text mentions project files.
    const { width } = viewport(doc);
    for (const label of queryAll(doc, 'span, div, h1, h2, h3, h4, button, p, label')) {
      const text = (label.textContent || '').trim();
      if (text.length > 24 || !regexpTest(/^files$/i, text)) continue;
      let node = label.parentElement;
      for (let depth = 0; depth < 14 && node && node !== doc.body; depth += 1, node = node.parentElement) {
        const column = (node.innerText || '').slice(0, 12000);
        if (!regexpTest(PROJECT_ASSET, column) || column.length > 20000) continue;
        const rect = rectOf(node);
        const noLayout = !rect || (rect.width <= 1 && rect.height <= 1);
        const leftColumn = rect && rect.width >= 60 && rect.width <= width * 0.48 && rect.height >= 40 && rect.left <= width * 0.34;
        if ((leftColumn || (noLayout && depth < 8)) && isShown(node, doc)) return node;
      }
    }
    return null;
  }

  const treeRows = list => arrayFrom(list?.children || []).filter(child =>
    child.tagName === 'LI' || child.getAttribute?.('role') === 'treeitem');

  const nestedList = row => arrayFrom(row?.children || []).find(child =>
    child.tagName === 'UL' || ['group', 'tree'].includes(child.getAttribute?.('role'))) || null;

  const rowButton = row => arrayFrom(row?.children || []).find(child => child.tagName === 'BUTTON')
    || (row?.getAttribute?.('role') === 'treeitem' ? row : null);

  // typst.app draws a closed folder as one closed outline with curves and
  // straight edges; anything else (or a changed icon) stays unclassified
  // rather than being guessed as a file.
  function closedFolderIcon(button) {
    const svg = queryAll(button, 'svg')[0];
    if (!svg || queryAll(svg, 'rect, circle, ellipse, line, polyline, polygon').length) return false;
    const paths = queryAll(svg, 'path');
    if (paths.length !== 1) return false;
    const drawing = paths[0].getAttribute?.('d') || '';
    return (drawing.match(/[Mm]/g) || []).length === 1
      && regexpTest(/[Cc]/, drawing) && regexpTest(/[Hh]/, drawing) && regexpTest(/[Vv]/, drawing) && regexpTest(/[Zz]\s*$/, drawing);
  }

  function entryName(value) {
    const name = inlineText(value, LIMITS.MAX_PROJECT_TREE_SEGMENT_CHARS);
    return !name || name === '.' || name === '..' || regexpTest(/[\\/\0\r\n]/, name) ? null : name;
  }

  function readProjectTree(filesRoot) {
    if (!filesRoot) return null;
    const lists = [];
    if (filesRoot.tagName === 'UL' || filesRoot.getAttribute?.('role') === 'tree') lists.push(filesRoot);
    lists.push(...queryAll(filesRoot, 'ul, [role="tree"]'));
    const top = lists.find(list => treeRows(list).length > 0);
    if (!top) return null;
    const entries = [];
    let truncated = false;
    const walk = (list, parent, depth) => {
      if (depth > MAX_TREE_DEPTH) {
        truncated = true;
        return;
      }
      for (const row of treeRows(list)) {
        if (entries.length >= MAX_TREE_ENTRIES) {
          truncated = true;
          return;
        }
        const button = rowButton(row);
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
        const children = nestedList(row);
        if (children || closedFolderIcon(button)) {
          entries.push({ path, kind: 'folder', state: children ? 'expanded' : 'collapsed' });
          if (children) walk(children, path, depth + 1);
        } else {
          entries.push({ path, kind: regexpTest(FILE_NAME, name) ? 'file' : 'unknown' });
        }
      }
    };
    walk(top, '', 0);
    return entries.length ? { source: 'files_panel_dom', entries, truncated } : null;
  }

  // ---------- Asset detail panel ----------

  function labelledValue(bodyText, label) {
    const match = bodyText.match(new RegExp(`${label}:\\s*\\n?\\s*([^\\n\\r]+)`, 'i'));
    return match ? match[1].trim() : null;
  }

  function pathFromLabels(doc) {
    for (const element of queryAll(doc, 'dt, th, td, span, label, div, p, button')) {
      const text = (element.textContent || '').trim();
      if (!regexpTest(/^path\s*:?$/i, text)) continue;
      const next = (element.nextElementSibling?.textContent || '').trim();
      if (next.length > 2 && next.length < 400 && regexpTest(/[./\\]/, next) && !regexpTest(/^path$/i, next)) return next;
      const row = (element.parentElement?.textContent || '').replace(/\s+/g, ' ');
      const match = row.match(/Path\s*:?\s*([^\s].*?)(?:\s+(?:Format|Resolution|Size)\s*:)|$/i);
      const value = match?.[1]?.trim();
      if (value && value.length > 2 && value.length < 400) return value;
    }
    return null;
  }

  function pathFromCrumbText(bodyText, focusedName) {
    const text = bodyText.replace(/\s+/g, ' ');
    const image = text.match(/>\s*images\s*>\s*([^\s>]+)/i);
    if (image?.[1] && (!focusedName || image[1].trim().toLowerCase() === focusedName.toLowerCase())) {
      return `images/${image[1].trim()}`;
    }
    const font = text.match(/>\s*fonts\s*>\s*([^<\n\r]+?\.(?:ttf|otf|woff2?))\b/i);
    if (font?.[1]?.trim()) return `fonts/${font[1].trim().replace(/^\/+/, '')}`;
    const nested = text.match(/>\s*([\w.-]+(?:\/[\w.-]+)*\/[^\s>]+\.(?:png|jpe?g|gif|webp|svg|pdf|ttf|otf|woff2?))\b/i);
    return nested?.[1]?.trim() || null;
  }

  function largestCanvasArea(doc) {
    let largest = 0;
    for (const canvas of queryAll(doc, 'canvas')) largest = mathMax(largest, (canvas.width || 0) * (canvas.height || 0));
    return largest;
  }

  function previewKind(detailPath, canvasArea, format, resolution, size) {
    if (detailPath) {
      if (regexpTest(/\.(png|jpe?g|gif|webp|svg|ico|bmp|tiff?)$/i, detailPath)) return 'binary_image_asset';
      if (regexpTest(/\.(ttf|otf|woff2?|eot)$/i, detailPath)) return 'font_binary_asset';
      if (regexpTest(/\.(pdf|zip|tar|gz|wasm)$/i, detailPath)) return 'binary_other_asset';
      if (regexpTest(/\.typ(st)?$/i, detailPath)) return 'typst_source_file';
      return 'file_asset_detail';
    }
    const formatText = (format || '').trim();
    if (formatText && resolution && regexpTest(/^(PNG|JPEG|JPG|GIF|WebP|SVG|BMP|TIFF?)/i, formatText) && regexpTest(/\d+\s*[x×]\s*\d+/, resolution)) {
      return 'binary_image_asset';
    }
    if (formatText && size && regexpTest(/^(TrueType|OpenType|OTF|TTF|WOFF2?|WOFF|Variable\s+Font)/i, formatText)) {
      return 'font_binary_asset';
    }
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
      } else if (focusedHint && regexpTest(/\.(png|jpe?g|gif|webp|svg|pdf|ttf|otf|woff2?)$/i, focusedHint)) {
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
      files_panel_open: Boolean(filesRoot),
      focused_element_file_hint: focusedHint
    };
    if (options?.includeProjectTree !== false) {
      const tree = readProjectTree(filesRoot);
      if (tree) result.project_file_tree = tree;
    }
    return result;
  }

  root.__typstAgentFindFilesPanelRoot = findFilesRoot;
  root.__typstAgentWorkspaceExtract = extract;
})(globalThis);
