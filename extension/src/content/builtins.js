/*
 * The main world's own built-ins, taken at document_start (main world).
 *
 * typst.app's scripts run in the main world too, and anything they can
 * reach they can replace: JSON.stringify, Array.prototype.map,
 * String.prototype.slice, Map.prototype.get, window.postMessage, … This file
 * loads first of the main-world files, before any script of the page runs,
 * and keeps a reference to every built-in main.js, edit-guard.js,
 * inline-diff.js, workspace.js and diagnostics.js call, so replacing them
 * later cannot change what the guards, reads (workspace hints, diagnostics),
 * answers and the overlay do.
 *
 * Prototype methods are uncurried (`slice(text, 0, 5)` instead of
 * `text.slice(0, 5)`); the callers walk arrays and node lists by index (their
 * iterators are replaceable too), give their regular expressions their own
 * `exec` and `flags` through `pattern()` (RegExp.prototype.test and replace
 * look both up on the expression), and read request payloads by own property
 * through `own()`. Arrays are built by index (`listFrom`, `listSlice`,
 * `push`): Array.prototype.map, filter and slice make their result through
 * the array's `constructor`, which a page script can replace; strings are
 * cut with `split`, matches counted with `matchAll` (String.prototype.split
 * and matchAll make a fresh expression whose `exec` is the page's).
 *
 * The object is a non-configurable, read-only property of the window: a page
 * script can neither replace it nor plant one before an update re-injects
 * the files (the re-injected file then keeps the first capture, which was
 * taken before the page ran). Values the page's DOM reports (sizes,
 * attributes, text) stay the page's to report: it controls its DOM anyway.
 *
 * Exposes globalThis.__typstAgentBuiltins2; the number is part of the name
 * because the property cannot be replaced: a version that takes other
 * built-ins gets a new name, so a page that kept an older extension's object
 * (the extension was updated while the tab stayed open) gets the new one.
 */
(function (root) {
  'use strict';
  const NAME = '__typstAgentBuiltins2';
  if (root[NAME]) return;
  const uncurry = Function.prototype.call.bind(Function.prototype.bind, Function.prototype.call);
  const { defineProperty, freeze, getOwnPropertyDescriptor } = Object;
  const hasOwn = uncurry(Object.prototype.hasOwnProperty);
  const regexpExec = RegExp.prototype.exec;
  const exec = uncurry(regexpExec);
  const indexOfText = uncurry(String.prototype.indexOf);
  const sliceText = uncurry(String.prototype.slice);
  const pushItem = uncurry(Array.prototype.push);
  const { min, max } = Math;
  const flagsOf = uncurry(getOwnPropertyDescriptor(RegExp.prototype, 'flags').get);
  const setter = (proto, name) => uncurry(getOwnPropertyDescriptor(proto, name).set);
  const methods = (proto, names) => {
    const taken = {};
    for (let index = 0; index < names.length; index += 1) taken[names[index]] = uncurry(proto[names[index]]);
    return freeze(taken);
  };

  // The items of an array or array-like (a NodeList, an HTMLCollection) in a
  // new array, read by index: no iterator is asked.
  const listFrom = list => {
    const items = [];
    const length = list ? list.length : 0;
    for (let index = 0; index < length; index += 1) pushItem(items, list[index]);
    return items;
  };
  // Array.prototype.slice's arguments and result, built by index.
  const listSlice = (list, start = 0, end = list.length) => {
    const from = start < 0 ? max(list.length + start, 0) : min(start, list.length);
    const to = end < 0 ? max(list.length + end, 0) : min(end, list.length);
    const items = [];
    for (let index = from; index < to; index += 1) pushItem(items, list[index]);
    return items;
  };
  // Every match of a global pattern() in `text`, in order (String.prototype
  // matchAll's matches; an empty match moves on by one character).
  const matchAll = (expression, text) => {
    const found = [];
    expression.lastIndex = 0;
    for (let match = exec(expression, text); match; match = exec(expression, text)) {
      pushItem(found, match);
      if (match[0] === '') expression.lastIndex += 1;
    }
    return found;
  };
  // String.prototype.split's pieces for a plain string separator, or for a
  // global pattern() whose matches are never empty and that has no groups.
  const split = (text, separator) => {
    const pieces = [];
    let from = 0;
    if (typeof separator === 'string') {
      for (let at = indexOfText(text, separator); at >= 0; at = indexOfText(text, separator, from)) {
        pushItem(pieces, sliceText(text, from, at));
        from = at + separator.length;
      }
    } else {
      const matches = matchAll(separator, text);
      for (let index = 0; index < matches.length; index += 1) {
        pushItem(pieces, sliceText(text, from, matches[index].index));
        from = matches[index].index + matches[index][0].length;
      }
    }
    pushItem(pieces, sliceText(text, from));
    return pieces;
  };

  const builtins = freeze({
    uncurry,
    hasOwn,
    // `object[key]` only when it is the object's own: a property a page
    // script adds to Object.prototype cannot fill in a field a request lacks.
    own: (object, key) => (object != null && hasOwn(object, key) ? object[key] : undefined),
    // A regular expression whose matching no page script can replace.
    pattern(expression) {
      defineProperty(expression, 'exec', { value: regexpExec });
      defineProperty(expression, 'flags', { value: flagsOf(expression) });
      return expression;
    },
    exec,
    listFrom,
    listSlice,
    matchAll,
    split,
    min,
    max,
    abs: Math.abs,
    floor: Math.floor,
    isInteger: Number.isInteger,
    isFinite: Number.isFinite,
    parseInt: Number.parseInt,
    isArray: Array.isArray,
    freeze,
    ToString: String,
    ToNumber: Number,
    SafeRegExp: RegExp,
    SafeMap: Map,
    SafeSet: Set,
    SafeWeakMap: WeakMap,
    SafeMutationObserver: root.MutationObserver,
    SafeResizeObserver: typeof root.ResizeObserver === 'function' ? root.ResizeObserver : null,
    string: methods(String.prototype, [
      'slice', 'padStart', 'indexOf', 'lastIndexOf', 'toLowerCase', 'toUpperCase', 'trim', 'includes', 'charCodeAt',
      'codePointAt', 'endsWith'
    ]),
    numberToString: uncurry(Number.prototype.toString),
    array: methods(Array.prototype, ['push', 'pop', 'join', 'filter', 'find', 'some', 'sort', 'splice', 'includes']),
    map: methods(Map.prototype, ['get', 'set', 'has', 'delete', 'clear', 'forEach']),
    set: methods(Set.prototype, ['has', 'add']),
    weakMap: methods(WeakMap.prototype, ['get', 'set']),
    regexp: freeze({ test: uncurry(RegExp.prototype.test), replace: uncurry(RegExp.prototype[Symbol.replace]) }),
    document: methods(Document.prototype, ['querySelector', 'querySelectorAll', 'createElement', 'getElementById']),
    element: methods(Element.prototype, [
      'querySelectorAll', 'querySelector', 'getAttribute', 'closest', 'getBoundingClientRect', 'setAttribute', 'append',
      'replaceChildren', 'remove'
    ]),
    node: freeze({
      appendChild: uncurry(Node.prototype.appendChild),
      contains: uncurry(Node.prototype.contains),
      setText: setter(Node.prototype, 'textContent')
    }),
    setClassName: setter(Element.prototype, 'className'),
    canvas: methods(HTMLCanvasElement.prototype, ['getContext', 'toDataURL']),
    drawImage: uncurry(CanvasRenderingContext2D.prototype.drawImage),
    style: methods(CSSStyleDeclaration.prototype, ['setProperty']),
    events: methods(EventTarget.prototype, ['addEventListener', 'removeEventListener']),
    observer: freeze({
      observe: uncurry(MutationObserver.prototype.observe),
      disconnect: uncurry(MutationObserver.prototype.disconnect),
      observeSize: typeof root.ResizeObserver === 'function' ? uncurry(ResizeObserver.prototype.observe) : null,
      disconnectSize: typeof root.ResizeObserver === 'function' ? uncurry(ResizeObserver.prototype.disconnect) : null
    }),
    postMessage: root.postMessage.bind(root),
    setTimeout: root.setTimeout.bind(root),
    clearTimeout: root.clearTimeout.bind(root),
    requestAnimationFrame: root.requestAnimationFrame.bind(root),
    cancelAnimationFrame: root.cancelAnimationFrame.bind(root),
    getComputedStyle: root.getComputedStyle.bind(root),
    randomUUID: root.crypto.randomUUID.bind(root.crypto),
    TEXT_NODE: Node.TEXT_NODE
  });
  defineProperty(root, NAME, { value: builtins, writable: false, enumerable: false, configurable: false });
})(globalThis);
