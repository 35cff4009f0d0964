// The chat area of the real side panel: hostile Markdown stays inert (stored
// history and a streamed answer), a streamed answer shows reasoning, text and
// tool blocks in arrival order, a long answer rendered block by block while it
// streams ends in the DOM its saved chat renders, a long answer is drawn only
// near the view while the chat keeps to its end, a preflight banner offers Check again / Skip and
// disappears, "Jump to latest" appears when the user has scrolled away, the renderer's
// warm-up lays its samples out unseen and leaves nothing behind, and the
// render cost of a 100 KB answer in 2,000 deltas is reported (never asserted).
//
// Everything goes through public seams: worker messages from the control page,
// the scripted model endpoint, and the panel's DOM (clicks and reads).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';
import { forEachBuild } from './suite.mjs';
import { poll } from './harness.mjs';
import { measurePanelRender, openPanel, send, useFixtureModel, waitForAnswer } from './panel-render.mjs';
import { assertAccessible, enableKeyboard, expectFocusOn, isFocused, press, tabTo } from './a11y.mjs';

const MARKDOWN_TAGS = [
  'P', 'BR', 'STRONG', 'EM', 'DEL', 'A', 'CODE', 'PRE', 'BLOCKQUOTE', 'UL', 'OL', 'LI',
  'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD',
];

// Every attack below would set window.__hostileRan if it ever executed.
const HOSTILE_MARKDOWN = [
  '# Hostile answer',
  '',
  '<script>window.__hostileRan = "script"</script>',
  '',
  '<iframe src="https://remote.example/frame"></iframe>',
  '',
  '<img src="https://remote.example/pixel.png" onerror="window.__hostileRan = \'img\'">',
  '',
  '<svg onload="window.__hostileRan = \'svg\'"><circle r="5"/></svg>',
  '',
  '<form action="https://remote.example/post"><input autofocus onfocus="window.__hostileRan = \'form\'"><button>Go</button></form>',
  '',
  '<style>body { display: none }</style>',
  '',
  '<div style="position:fixed;inset:0" onmouseover="window.__hostileRan = \'div\'">cover</div>',
  '',
  '<!-- a hidden comment -->',
  '',
  'Inline <span onclick="window.__hostileRan = \'span\'">span</span> and <a href="javascript:window.__hostileRan=1">raw link</a>.',
  '',
  '[javascript link](javascript:window.__hostileRan=\'link\')',
  '[entity link](&#106;avascript:alert(1))',
  '[mixed case](JaVaScRiPt:alert(1))',
  '[spaced](<java script:alert(1)>)',
  '[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[insecure link](http://remote.example/)',
  '[safe link](https://typst.app/docs/ "Typst docs")',
  '',
  '![remote alt](https://remote.example/cat.png)',
  '',
  '![inline alt](data:image/png;base64,iVBORw0KGgo=)',
  '',
  '| a | b |',
  '|---|---|',
  '| ~~x~~ | **y** |',
].join('\n');

/** Runs in the panel: what the rendered answers under #messages contain. */
function auditChat(allowed) {
  const messages = document.getElementById('messages');
  const contents = [...(messages?.querySelectorAll('.msg-assistant .msg-content') ?? [])];
  // The panel's own structure: an answer's blocks sit in block groups
  // (div.msg-blocks, the newest also .msg-blocks-newest, nothing but the
  // class); the Markdown is what they hold.
  const groups = contents.flatMap(content => [...content.children]);
  const inside = groups.flatMap(group => [...group.querySelectorAll('*')]);
  const everything = [...(messages?.querySelectorAll('*') ?? [])];
  return {
    contents: contents.length,
    notGroups: groups.filter(group => group.tagName !== 'DIV' || group.attributes.length !== 1 ||
      !['msg-blocks', 'msg-blocks msg-blocks-newest'].includes(group.className))
      .map(group => group.outerHTML.slice(0, 80)),
    text: contents.map(content => content.textContent).join('\n'),
    forbiddenTags: inside.map(e => e.tagName).filter(tag => !allowed.includes(tag)),
    attributesOffLinks: inside.filter(e => e.tagName !== 'A' && e.attributes.length > 0).map(e => e.outerHTML.slice(0, 80)),
    handlers: everything.filter(e => [...e.attributes].some(a => /^on/i.test(a.name))).map(e => e.tagName),
    styled: inside.filter(e => e.hasAttribute('style')).length,
    badHrefs: everything.map(e => e.getAttribute('href')).filter(h => h !== null && !/^(https:|mailto:)/i.test(h)),
    links: inside.filter(e => e.tagName === 'A').map(a => ({
      href: a.getAttribute('href'), text: a.textContent, rel: a.getAttribute('rel'), target: a.getAttribute('target'),
      attributes: [...a.attributes].map(x => x.name).sort(),
    })),
    tables: inside.filter(e => e.tagName === 'TABLE').length,
    struck: inside.filter(e => e.tagName === 'DEL').length,
    ran: window.__hostileRan ?? null,
  };
}

/** Closes `panel` and opens the panel again beside `fixture`; resolves once `selector` shows. */
async function reopenChat(h, fixture, panel, selector) {
  await panel.close();
  const { windowId } = await h.tabInfo(fixture.tabId);
  const again = await h.openSidePanel({ windowId });
  await again.waitForReady();
  await again.waitFor(found => document.querySelectorAll(found).length > 0, selector,
    { message: 'the saved answer to render' });
  return again;
}

function assertInert(audit, label) {
  assert.ok(audit.contents > 0, `${label}: an assistant answer was rendered`);
  assert.deepEqual(audit.notGroups, [], `${label}: only block groups hold the Markdown`);
  assert.deepEqual(audit.forbiddenTags, [], `${label}: only Markdown elements`);
  assert.deepEqual(audit.attributesOffLinks, [], `${label}: attributes only on links`);
  assert.deepEqual(audit.handlers, [], `${label}: no on* attributes`);
  assert.equal(audit.styled, 0, `${label}: no style attributes`);
  assert.deepEqual(audit.badHrefs, [], `${label}: only https/mailto hrefs`);
  assert.equal(audit.ran, null, `${label}: nothing executed`);
  // Raw HTML is shown as text.
  assert.match(audit.text, /<script>window\.__hostileRan = "script"<\/script>/, `${label}: script shown as text`);
  assert.match(audit.text, /<iframe src=/, `${label}: iframe shown as text`);
  // Unsafe links keep their label only.
  for (const label_ of ['javascript link', 'entity link', 'mixed case', 'spaced', 'data link', 'insecure link']) {
    assert.ok(audit.text.includes(label_), `${label}: "${label_}" kept as text`);
    assert.ok(!audit.links.some(link => link.text === label_), `${label}: "${label_}" is not a link`);
  }
  // Images become labelled links (https) or labels.
  assert.ok(audit.text.includes('Image: inline alt'), `${label}: data image became its label`);
  const links = audit.links.map(link => link.text).sort();
  assert.deepEqual(links, ['Image: remote alt', 'safe link'], `${label}: exactly the two allowed links`);
  for (const link of audit.links) {
    assert.equal(link.target, '_blank', `${label}: ${link.text} opens a new tab`);
    assert.deepEqual(link.rel?.split(/\s+/).sort(), ['noopener', 'noreferrer'], `${label}: ${link.text} rel`);
    assert.ok(link.attributes.every(name => ['href', 'title', 'rel', 'target'].includes(name)), link.attributes.join());
  }
  assert.equal(audit.links.find(link => link.text === 'safe link')?.href, 'https://typst.app/docs/');
  assert.equal(audit.tables, 1, `${label}: GFM table`);
  assert.equal(audit.struck, 1, `${label}: GFM strikethrough`);
}

function projectOf(url) {
  return new URL(url).pathname.split('/')[2];
}

forEachBuild('panel chat', get => {
  const endpoint = new ModelEndpoint();
  let routed = false;
  const harness = () => {
    const h = get();
    if (!routed) {
      h.useModelEndpoint(endpoint);
      routed = true;
    }
    return h;
  };

  it('renders hostile Markdown from a stored chat as inert text and safe links', async () => {
    const h = harness();
    const url = h.fixtureUrl({ cm: 'latest' });
    const projectId = projectOf(url);
    const session = await h.request('SESSION_CREATE', { projectId, name: 'Hostile history' });
    await h.request('SESSION_UPDATE', {
      sessionId: session.id,
      messages: [
        { role: 'user', content: 'Show me <b>raw</b> **markdown**' },
        {
          role: 'assistant',
          content: HOSTILE_MARKDOWN,
          responseStatus: 'complete',
          segments: [
            { type: 'reasoning', content: 'Stored <img src=x onerror=alert(1)> reasoning' },
            { type: 'text', content: HOSTILE_MARKDOWN },
          ],
        },
      ],
    });
    const fixture = await h.openFixtureTab({ cm: 'latest', project: projectId });
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await panel.waitFor(() => document.querySelectorAll('#messages .msg-assistant .msg-content').length > 0,
      undefined, { message: 'the stored answer to render' });

    assertInert(await panel.evaluate(auditChat, MARKDOWN_TAGS), 'stored history');
    await assertAccessible(panel, 'a stored chat with rendered Markdown (headings, links, a table, code)');
    const user = await panel.evaluate(() => {
      const text = document.querySelector('#messages .msg-user .msg-user-text');
      return { text: text?.textContent, elements: text?.children.length };
    });
    assert.deepEqual(user, { text: 'Show me <b>raw</b> **markdown**', elements: 0 }, 'user text is never Markdown');
    const reasoning = await panel.evaluate(() => {
      const block = document.querySelector('#messages .reasoning-block');
      return {
        open: block?.hasAttribute('open'),
        title: block?.querySelector('.reasoning-title')?.textContent,
        meta: block?.querySelector('.reasoning-meta')?.textContent,
        body: block?.querySelector('.reasoning-body')?.textContent,
        images: block?.querySelectorAll('img').length,
      };
    });
    assert.deepEqual(reasoning, {
      open: false, title: 'Thought', meta: `${'Stored <img src=x onerror=alert(1)> reasoning'.length} chars`,
      body: 'Stored <img src=x onerror=alert(1)> reasoning', images: 0,
    });
    await panel.close();
    await fixture.page.close();
  });

  it('renders a streamed hostile answer as inert text and safe links', async () => {
    const h = harness();
    await useFixtureModel(h, endpoint);
    endpoint.setScript(() => [step.content(HOSTILE_MARKDOWN, { chunks: 40 }), step.finish('stop')]);
    const { fixture, panel } = await openPanel(h);
    const before = endpoint.requests.length;
    await send(panel, 'Please answer with the hostile sample.');
    await endpoint.waitForRequests(before + 1);
    await waitForAnswer(panel, 1, 'the streamed hostile answer to finish');
    assertInert(await panel.evaluate(auditChat, MARKDOWN_TAGS), 'streamed answer');
    await panel.close();
    await fixture.page.close();
  });

  it('ends a long streamed answer, rendered block by block, in the DOM its stored chat renders', async () => {
    const h = harness();
    await useFixtureModel(h, endpoint);
    // Blocks that later lines act on (setext headings, tables, loose lists,
    // lazy continuations, fences with blank lines) and hostile raw HTML,
    // repeated past several frames' render budgets.
    const part = index => [
      `Heading ${index}`, '---', '',
      `A paragraph with **bold**, \`code\` and [a link](https://typst.app/docs/${index}).`, 'Its second line.', '',
      '| a | b |', '|:--|--:|', `| ${index} | <img src=x onerror="window.__hostileRan = 'table'"> |`, '',
      '- tight', '- list', '', '- loose', '', '  continued', '',
      '> quoted', 'lazy continuation', '',
      '```typst', `#let x = ${index}`, '', '#x', '```', '',
      '<div onclick="window.__hostileRan = \'div\'">raw block</div>', '',
    ].join('\n');
    const answer = Array.from({ length: 60 }, (_, index) => part(index)).join('\n');
    endpoint.setScript(() => [step.content(answer, { chunks: 400 }), step.finish('stop')]);
    const { fixture, panel } = await openPanel(h);
    await send(panel, 'Answer with the long sample.');
    await waitForAnswer(panel, 1, 'the long streamed answer to finish');
    // Each answer's Markdown as one text: the block groups' contents in order
    // (where a group starts depends on how the text arrived).
    const contentHtml = () => [...document.querySelectorAll('#messages .msg-assistant .msg-content')]
      .map(node => [...node.children].map(group => group.innerHTML).join(''));
    const streamed = await panel.evaluate(contentHtml);
    const groups = await panel.evaluate(() => document.querySelectorAll('#messages .msg-assistant .msg-blocks').length);
    assert.ok(groups > 1, `a long answer is shown in several block groups (${groups})`);
    const audit = await panel.evaluate(auditChat, MARKDOWN_TAGS);
    assert.deepEqual([audit.notGroups, audit.forbiddenTags, audit.attributesOffLinks, audit.handlers, audit.badHrefs],
      [[], [], [], [], []]);
    assert.equal(audit.styled, 0, 'no style attributes');
    assert.equal(audit.ran, null, 'nothing executed');
    assert.match(audit.text, /<div onclick=/, 'raw HTML shown as text');
    // The saved chat, opened again, is rendered from history as one text.
    const again = await reopenChat(h, fixture, panel, '#messages .msg-assistant .msg-content');
    const stored = await again.evaluate(contentHtml);
    assert.equal(streamed.length, 1, 'one text segment');
    assert.ok(streamed[0].includes('<table>') && streamed[0].includes('<h2>'), 'the streamed answer is Markdown');
    assert.deepEqual(streamed, stored, 'the streamed DOM equals the whole render of the saved answer');
    await again.close();
    await fixture.page.close();
  });

  it('lays out a long answer only near the view, and keeps the chat at its end while streaming and when reopened', async () => {
    const h = harness();
    await useFixtureModel(h, endpoint);
    const unit = 'A paragraph of the long answer with **bold**, `code` and a [link](https://typst.app/docs/).\n\n';
    // It ends in a long code block: the last group is then taller than the
    // height a group is given until it is first drawn.
    const answer = `${unit.repeat(600)}The last paragraph.\n\n\`\`\`\n${'a line of code\n'.repeat(150)}\`\`\``;
    endpoint.setScript(() => [step.content(answer, { chunks: 300 }), step.finish('stop')]);
    const { fixture, panel } = await openPanel(h);
    // Samples every frame while the answer streams: the chat must stay at
    // its end throughout, however block groups change size when drawn.
    await panel.evaluate(() => {
      window.__follow = { frames: 0, away: 0 };
      const messages = document.getElementById('messages');
      const sample = () => {
        if (document.querySelector('#messages .msg-assistant.streaming .msg-blocks')) {
          window.__follow.frames += 1;
          if (messages.scrollHeight - messages.scrollTop - messages.clientHeight > 72) window.__follow.away += 1;
        }
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    await send(panel, 'Answer at length.');
    await waitForAnswer(panel, 1, 'the long answer to finish');
    // Two frames: a group near the view is drawn, and scroll anchoring
    // settles, in the lifecycle after the one that scrolled to the end.
    const atEnd = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
      const messages = document.getElementById('messages');
      const groups = [...messages.querySelectorAll('.msg-assistant:last-child .msg-blocks')];
      const drawn = group => group.firstElementChild.checkVisibility({ contentVisibilityAuto: true });
      const last = groups[groups.length - 1];
      const lastRect = last.getBoundingClientRect();
      const view = messages.getBoundingClientRect();
      done({
        gap: messages.scrollHeight - messages.scrollTop - messages.clientHeight,
        jumpHidden: document.getElementById('jump-latest').hidden,
        groups: groups.length,
        firstDrawn: drawn(groups[0]),
        lastDrawn: drawn(last),
        lastInView: lastRect.bottom > view.top && lastRect.top < view.bottom,
        paragraphs: messages.querySelectorAll('.msg-assistant:last-child .msg-content p').length,
      });
    })));
    const streamed = await panel.evaluate(atEnd);
    const follow = await panel.evaluate(() => window.__follow);
    assert.ok(follow.frames > 0, 'frames were sampled while the answer streamed');
    assert.equal(follow.away, 0, `the chat followed the stream in all ${follow.frames} frames`);
    assert.ok(streamed.groups >= 10, `the answer is in many block groups (${streamed.groups})`);
    // At its end (within 2 px), the first group far above not drawn.
    const assertAtEnd = (shown, message) => assert.deepEqual({ ...shown, gap: Math.max(shown.gap, 2), groups: 0 },
      { gap: 2, jumpHidden: true, groups: 0, firstDrawn: false, lastDrawn: true, lastInView: true, paragraphs: 601 }, message);
    assertAtEnd(streamed, 'the streamed answer ends at the bottom; its first group, far above, is not drawn');
    await assertAccessible(panel, 'a long answer in block groups');

    // The saved chat opens at its end too, drawing only what is near it.
    const again = await reopenChat(h, fixture, panel, '#messages .msg-assistant .msg-blocks');
    assertAtEnd(await again.evaluate(atEnd), 'the reopened chat is at its end; its first group is not drawn');
    // Scrolled to the top, the first group is drawn and the chat stays there.
    await again.evaluate(() => { document.getElementById('messages').scrollTop = 0; });
    const top = await again.waitFor(() => {
      const messages = document.getElementById('messages');
      const first = messages.querySelector('.msg-assistant .msg-blocks');
      return first.firstElementChild.checkVisibility({ contentVisibilityAuto: true })
        ? { atTop: messages.scrollTop < 10, jumpHidden: document.getElementById('jump-latest').hidden } : null;
    }, undefined, { timeout: 5_000, message: 'the first block group to be drawn at the top' });
    assert.deepEqual(top, { atTop: true, jumpHidden: true }, 'the chat stays where the reader scrolled');
    await again.close();
    await fixture.page.close();
  });

  it('streams reasoning, text and read-tool blocks in order, then saves the answer', async () => {
    const h = harness();
    await useFixtureModel(h, endpoint);
    endpoint.setScript(body => {
      const hasResults = body.messages.some(message => message.role === 'tool');
      if (!hasResults) {
        return [
          step.reasoning('I should read the document, its diagnostics and the file tree first.', { chunks: 5 }),
          step.content('Let me look at **the document**.', { chunks: 4 }),
          step.toolCall({ index: 0, id: 'call-doc', name: 'read_document', arguments: '{}' }),
          step.toolCall({ index: 1, id: 'call-diag', name: 'read_diagnostics', arguments: '{}' }),
          step.toolCall({ index: 2, id: 'call-tree', name: 'read_file_structure', arguments: '{}' }),
          step.finish('tool_calls'),
        ];
      }
      return [
        step.reasoning('The results are in; summarising.', { chunks: 3 }),
        step.content('## Summary\n\nThe file is **short**.\n\n- one\n- two\n', { chunks: 6 }),
        step.finish('stop'),
      ];
    });
    const { fixture, panel } = await openPanel(h);
    const before = endpoint.requests.length;
    await send(panel, 'What is in this document?');
    await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
    await waitForAnswer(panel, 1, 'the answer with tool calls to finish');

    const shown = await panel.evaluate(() => {
      const answers = document.querySelectorAll('#messages .msg-assistant');
      const body = answers[answers.length - 1].querySelector('.msg-body');
      return [...body.children].map(child => ({
        kind: ['reasoning-block', 'tool-block', 'msg-content'].find(name => child.classList.contains(name)) ?? child.className,
        open: child.hasAttribute('open'),
        title: child.querySelector('.reasoning-title')?.textContent ?? null,
        meta: child.querySelector('.reasoning-meta')?.textContent ?? null,
        tool: child.dataset.toolName ?? null,
        label: child.querySelector('.tool-block-name')?.textContent ?? null,
        status: child.querySelector('.tool-status')?.textContent ?? null,
        statusClass: child.querySelector('.tool-status')?.className ?? null,
        banner: !!child.querySelector('.tool-preflight'),
        html: child.classList.contains('msg-content') ? child.innerHTML : null,
      }));
    });
    assert.deepEqual(shown.map(part => part.kind),
      ['reasoning-block', 'msg-content', 'tool-block', 'tool-block', 'tool-block', 'reasoning-block', 'msg-content']);
    for (const reasoning of [shown[0], shown[5]]) {
      assert.equal(reasoning.title, 'Thought');
      assert.equal(reasoning.open, false, 'a finished reasoning block is collapsed');
      assert.match(reasoning.meta, /^\d+ chars$/);
    }
    assert.match(shown[1].html, /<strong>the document<\/strong>/, 'a closed text segment is rendered as Markdown');
    assert.deepEqual(shown.slice(2, 5).map(part => [part.tool, part.label]), [
      ['read_document', 'Read document'],
      ['read_diagnostics', 'Read diagnostics'],
      ['read_file_structure', 'Read file structure'],
    ]);
    for (const tool of shown.slice(2, 5)) {
      assert.match(tool.statusClass, /tool-status-ok/, `${tool.tool}: ${tool.status}`);
      assert.equal(tool.banner, false);
    }
    assert.match(shown[2].status, /^\d+ chars/);
    assert.match(shown[4].status, /\d+ entr(y|ies)/);
    assert.match(shown[6].html, /<h2>Summary<\/h2>/);
    assert.match(shown[6].html, /<li>two<\/li>/);

    // The chat saved by the panel has the same segments.
    const sessions = await h.request('SESSION_LIST', { projectId: projectOf(fixture.url) });
    const saved = await poll(async () => {
      const session = await h.request('SESSION_GET', { sessionId: sessions[0].id });
      const last = session.messages.at(-1);
      return last?.role === 'assistant' && last.responseStatus === 'complete' ? last : null;
    }, { message: 'the saved assistant message' });
    assert.deepEqual(saved.segments.map(segment => segment.type), ['reasoning', 'text', 'tools', 'reasoning', 'text']);
    assert.deepEqual(saved.segments[2].calls.map(call => call.name), ['read_document', 'read_diagnostics', 'read_file_structure']);
    assert.equal(saved.content, 'Let me look at **the document**.## Summary\n\nThe file is **short**.\n\n- one\n- two\n');
    await assertAccessible(panel, 'a streamed answer with reasoning and tool blocks (collapsed)');

    // By keyboard: Tab reaches each block's header; Enter and Space open them.
    await enableKeyboard(panel);
    await tabTo(panel, '#messages .reasoning-header');
    await press(panel, 'Enter');
    await panel.waitFor(() => document.querySelector('#messages .reasoning-block').open, undefined,
      { message: 'Enter opens the reasoning block' });
    await tabTo(panel, '#messages .tool-block[data-tool-name="read_document"] .tool-block-header');
    await press(panel, ' ');
    await panel.waitFor(() => document.querySelector('#messages .tool-block[data-tool-name="read_document"] details').open,
      undefined, { message: 'Space opens the tool block' });
    await panel.evaluate(() => document.querySelectorAll('#messages details').forEach(details => { details.open = true; }));
    await assertAccessible(panel, 'a streamed answer with reasoning and tool blocks (expanded)');
    await press(panel, 'Enter');
    await panel.waitFor(() => !document.querySelector('#messages .tool-block[data-tool-name="read_document"] details').open,
      undefined, { message: 'Enter closes the tool block again' });
    await panel.close();
    await fixture.page.close();
  });

  it('shows a preflight banner with Check again and Skip, and offers Jump to latest after scrolling away', async () => {
    const h = harness();
    await useFixtureModel(h, endpoint);
    const longText = Array.from({ length: 80 }, (_, i) => `Paragraph ${i + 1} of a long answer.`).join('\n\n');
    endpoint.setScript(body => {
      const hasResults = body.messages.some(message => message.role === 'tool');
      if (!hasResults) {
        return [
          step.content(longText, { chunks: 10 }),
          step.toolCall({ index: 0, id: 'call-open', name: 'open_project_file', arguments: { path: 'chapters/intro.typ' } }),
          step.finish('tool_calls'),
        ];
      }
      return [step.content(`After the skip.\n\n${longText}`, { chunks: 10 }), step.finish('stop')];
    });
    const { fixture, panel } = await openPanel(h);
    const before = endpoint.requests.length;
    await send(panel, 'Open the intro chapter.');
    const banner = await panel.waitFor(() => {
      const block = document.querySelector('#messages .tool-block[data-tool-name="open_project_file"]');
      const banner = block?.querySelector('.tool-preflight');
      if (!banner) return null;
      return {
        status: block.querySelector('.tool-status').textContent,
        requirement: banner.querySelector('.tool-preflight-missing').textContent,
        buttons: [...banner.querySelectorAll('button')].map(button => button.textContent),
      };
    }, undefined, { timeout: 30_000, message: 'the preflight banner' });
    assert.deepEqual(banner, {
      status: 'open file…',
      requirement: 'Required: chapters/intro.typ',
      buttons: ['Check again', 'Skip'],
    });
    await assertAccessible(panel, 'a preflight banner');

    // The user scrolls up to read, then skips the wait.
    const scrolled = await panel.evaluate(() => {
      const messages = document.getElementById('messages');
      messages.scrollTop = 0;
      return messages.scrollHeight > messages.clientHeight;
    });
    assert.ok(scrolled, '#messages is its own scroll container and overflows');
    await panel.evaluate(() => document.querySelector('#messages .tool-preflight-skip').click());
    await endpoint.waitForRequests(before + 2, { timeout: 30_000 });
    await waitForAnswer(panel, 1, 'the answer after the skip');

    const after = await panel.evaluate(() => {
      const messages = document.getElementById('messages');
      const block = document.querySelector('#messages .tool-block[data-tool-name="open_project_file"]');
      return {
        banner: !!block.querySelector('.tool-preflight'),
        statusClass: block.querySelector('.tool-status').className,
        jumpHidden: document.getElementById('jump-latest').hidden,
        atTop: messages.scrollTop < 10,
      };
    });
    assert.deepEqual(after, { banner: false, statusClass: 'tool-status tool-status-err', jumpHidden: false, atTop: true },
      'the skipped call failed, the banner left, and the chat did not pull the reader down');
    await assertAccessible(panel, 'Jump to latest');

    // By keyboard: from the end of the panel, Shift+Tab reaches Jump to latest
    // before anything in the chat (which would scroll it); Enter jumps, and
    // focus moves to the chat it scrolled.
    await enableKeyboard(panel);
    await panel.evaluate(() => document.activeElement?.blur());
    await tabTo(panel, '#jump-latest', { shift: true, max: 8 });
    assert.equal(await panel.evaluate(() => document.getElementById('messages').scrollTop < 10), true,
      'reaching the button did not scroll');
    await press(panel, 'Enter');
    const bottom = await panel.waitFor(() => {
      const messages = document.getElementById('messages');
      const distance = messages.scrollHeight - messages.scrollTop - messages.clientHeight;
      return document.getElementById('jump-latest').hidden && distance <= 2 ? { distance } : null;
    }, undefined, { message: 'Jump to latest to scroll down and hide' });
    assert.ok(bottom.distance <= 2);
    await expectFocusOn(panel, '#messages', 'after Jump to latest');
    await panel.close();
    await fixture.page.close();
  });

  it('works by keyboard alone: a preflight banner (Tab to Check again and Skip, Enter)', async () => {
    const h = harness();
    await useFixtureModel(h, endpoint);
    endpoint.setScript(body => {
      if (!body.messages.some(message => message.role === 'tool')) {
        return [
          step.toolCall({ index: 0, id: 'call-open-keys', name: 'open_project_file', arguments: { path: 'chapters/methods.typ' } }),
          step.finish('tool_calls'),
        ];
      }
      return [step.content('Skipped.'), step.finish('stop')];
    });
    const { fixture, panel } = await openPanel(h);
    await enableKeyboard(panel);
    const before = endpoint.requests.length;
    await send(panel, 'Open the methods chapter.');
    const block = '#messages .tool-block[data-call-id="call-open-keys"]';
    await panel.waitFor(selector => !!document.querySelector(`${selector} .tool-preflight`), block,
      { timeout: 30_000, message: 'the preflight banner' });
    await tabTo(panel, `${block} .tool-preflight-retry`);
    await press(panel, 'Tab');
    assert.equal(await isFocused(panel, `${block} .tool-preflight-skip`), true, 'Tab goes from Check again to Skip');
    await press(panel, 'Enter');
    await panel.waitFor(selector => !document.querySelector(`${selector} .tool-preflight`), block,
      { timeout: 30_000, message: 'Skip ends the wait' });
    await expectFocusOn(panel, `${block} .tool-block-header`, 'the banner went: focus on its call');
    await endpoint.waitForRequests(before + 2, { timeout: 30_000 });
    await waitForAnswer(panel, 1, 'the answer after the skip');
    await panel.close();
    await fixture.page.close();
  });

  it('removes the answer bubble when a run fails before any output', async () => {
    const h = harness();
    await useFixtureModel(h, endpoint);
    endpoint.setScript(() => ({ status: 500, json: { error: { message: 'Fixture provider failure' } } }));
    const { fixture, panel } = await openPanel(h);
    const before = endpoint.requests.length;
    await send(panel, 'This run will fail.');
    await endpoint.waitForRequests(before + 1);
    const shown = await panel.waitFor(() => {
      const status = document.getElementById('status');
      const failed = status?.classList.contains('is-error') && /500|Fixture provider failure/.test(status.textContent);
      if (!failed) return null;
      return {
        answers: document.querySelectorAll('#messages .msg-assistant').length,
        users: [...document.querySelectorAll('#messages .msg-user .msg-user-text')].map(e => e.textContent),
      };
    }, undefined, { message: 'the error status after the failed run' });
    assert.deepEqual(shown, { answers: 0, users: ['This run will fail.'] }, 'no empty answer is left behind');
    await assertAccessible(panel, 'the error toast after a failed run');
    await panel.close();
    await fixture.page.close();
  });

  it('lays the renderer warm-up out once after start-up, unseen, and leaves nothing in the chat', async () => {
    const h = harness();
    const { fixture, panel } = await openPanel(h);
    // Every holder the warm-up inserts into #messages, from the panel's first
    // moment: its class, whether it is drawn, what it held, and its removal.
    await panel.session.send('Page.enable');
    const { identifier } = await panel.session.send('Page.addScriptToEvaluateOnNewDocument', { source: `(() => {
      const seen = window.__warmUp = { added: [], removed: 0 };
      new MutationObserver(records => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            if (!node.classList?.contains('msg-warm-up')) continue;
            seen.added.push({ parent: record.target.id, content: node.classList.contains('msg-content'),
              hidden: node.getAttribute('aria-hidden'), elements: [...node.querySelectorAll('*')].map(e => e.tagName) });
          }
          for (const node of record.removedNodes) if (node.classList?.contains('msg-warm-up')) seen.removed += 1;
        }
      }).observe(document, { subtree: true, childList: true });
    })();` });
    try {
      await panel.reload();
      await panel.waitForReady();
      // The samples come one per idle callback: done once every element an
      // answer may contain was laid out and every holder is gone again.
      const seen = await panel.waitFor(tags => {
        const { added, removed } = window.__warmUp;
        const laidOut = new Set(added.flatMap(holder => holder.elements));
        return tags.every(tag => laidOut.has(tag)) && removed === added.length ? window.__warmUp : null;
      }, MARKDOWN_TAGS, { message: 'every element an answer may contain laid out by the warm-up, and its holders removed' });
      assert.ok(seen.added.every(holder => holder.parent === 'messages' && holder.content && holder.hidden === 'true'),
        `every sample is laid out as a hidden .msg-content in #messages: ${JSON.stringify(seen.added.map(a => a.parent))}`);
      // Laid out, so not display: none; out of sight and of the chat's flow.
      const style = await panel.evaluate(() => {
        const probe = document.createElement('div');
        probe.className = 'msg-content msg-warm-up';
        document.getElementById('messages').append(probe);
        const computed = getComputedStyle(probe);
        const result = { display: computed.display, visibility: computed.visibility, position: computed.position, height: probe.getBoundingClientRect().height };
        probe.remove();
        return result;
      });
      assert.deepEqual(style, { display: 'block', visibility: 'hidden', position: 'absolute', height: 0 });
      const left = await panel.evaluate(() => ({
        holders: document.querySelectorAll('.msg-warm-up').length,
        loose: document.querySelectorAll('#messages > .msg-content').length,
      }));
      assert.deepEqual(left, { holders: 0, loose: 0 }, 'the warm-up leaves nothing in the chat');
      await assertAccessible(panel, 'the panel after the warm-up');
    } finally {
      await panel.session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier }).catch(() => {});
      await panel.close();
      await fixture.page.close();
    }
  });

  it('reports the render cost of a 100 KB answer streamed in 2,000 deltas', async t => {
    const h = harness();
    const result = await measurePanelRender(h, endpoint, { bytes: 100 * 1024, deltas: 2000 });
    assert.equal(result.paragraphs, result.expectedParagraphs, 'every paragraph of the answer was rendered as Markdown');
    const round = value => Math.round(value);
    const line = `panel-render-100kb-2000-deltas: wall=${round(result.wallMs)}ms task=${round(result.taskMs)}ms ` +
      `script=${round(result.scriptMs)}ms layout=${round(result.layoutMs)}ms style=${round(result.styleMs)}ms`;
    t.diagnostic(line);
    console.log(line);
  });
});
