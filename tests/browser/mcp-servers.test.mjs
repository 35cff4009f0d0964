// Every MCP server configuration of tests/tool-servers (18 real servers of
// the official TypeScript SDKs v1 and v2 and the Python SDK, on loopback)
// against the extension in real Chromium: saved through the worker's
// registry route, probed (PROBE_MCP_SERVER lists echo, add and lookup in
// the version the official client negotiates there), then called inside a
// run from the real side panel: the model calls echo {"text":"héllo"} and
// lookup, the user presses Approve once in each banner, and the results
// reach the model's next request and the tool blocks. The server's own
// request log shows what arrived: `Mcp-Param-Region` on the 2026-07-28
// path, and for the Python servers (whose DNS-rebinding guard refuses a
// foreign Origin with 403) requests without Origin, thanks to the
// extension's declarativeNetRequest rule; one test shows the 403 and its
// hint when the rule cannot be set.
//
// The 18-configuration matrix runs against the unpacked build only; the
// packaged ZIP runs one modern and one legacy configuration (the ZIP holds
// the same files, so the matrix would only double the time; see
// tests/README.md).

import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIGS } from '../tool-servers/configs.mjs';
import { start, stopAll } from '../tool-servers/launch.mjs';
import { ModelEndpoint } from '../fixtures/model-endpoint.mjs';
import { forEachBuild } from './suite.mjs';
import { openPanel, send, useFixtureModel, waitForAnswer } from './panel-render.mjs';
import {
  answerBanner, callingScript, clearRegistries, errorToast, mcpRecord, offeredName, probe, resultsById, savedChat,
  saveServers, toolBlock,
} from './tool-runs.mjs';

const ZIP_SMOKE = ['v2-handler-default', 'v1-stateful'];
const EXPECTED_TOOLS = ['add', 'echo', 'lookup'];

after(() => stopAll());

/** The rule ids of the extension's Origin block (protocol::constants, MCP_ORIGIN_RULE_FIRST_ID + 64). */
const ORIGIN_RULE_IDS = Array.from({ length: 64 }, (_, i) => 1000 + i);

/** Starts `id`, lets the browser reach it, and runs `body(server)`; always stops it. */
async function withServer(h, id, body) {
  const server = await start(id);
  const unroute = h.passThrough(server.url);
  try {
    return await body(server);
  } finally {
    unroute();
    await server.stop();
  }
}

forEachBuild('MCP servers', (get, build) => {
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

  const matrix = build.label === 'packaged ZIP' ? CONFIGS.filter(c => ZIP_SMOKE.includes(c.id)) : CONFIGS;
  for (const config of matrix) {
    it(`${config.id}: probed in ${config.expected.version}, echo and lookup called in a run after Approve once`, async () => {
      const h = harness();
      const server = await start(config.id);
      const unroute = h.passThrough(server.url);
      try {
        await clearRegistries(h);
        const record = mcpRecord(`srv-${config.id}`, `fx ${config.id}`, server.url);
        const [stored] = await saveServers(h, [record]);
        assert.equal(stored.url, server.url);

        const probed = await probe(h, record);
        assert.equal(probed.ok, true, JSON.stringify(probed));
        assert.equal(probed.data.version, config.expected.version);
        assert.deepEqual(probed.data.tools.map(tool => tool.name).sort(), EXPECTED_TOOLS);
        assert.deepEqual(probed.data.errors, []);
        const lookup = probed.data.tools.find(tool => tool.name === 'lookup');
        assert.equal(lookup.inputSchema.properties.region['x-mcp-header'], 'Region');

        await useFixtureModel(h, endpoint);
        endpoint.setScript(callingScript(body => [
          { id: 'call-echo', name: offeredName(body, 'echo'), args: { text: 'héllo' } },
          { id: 'call-lookup', name: offeredName(body, 'lookup'), args: { region: 'eu-west', query: 'grid' } },
        ], 'The server answered.'));
        const { fixture, panel } = await openPanel(h);
        const before = endpoint.requests.length;
        await send(panel, 'Call the echo and lookup tools.');
        await answerBanner(panel, 'call-echo', 'approve_once');
        await answerBanner(panel, 'call-lookup', 'approve_once');
        await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
        await waitForAnswer(panel, 1, 'the answer after the tool round');

        const [first, second] = endpoint.requests.slice(before).map(request => request.body);
        const echoName = offeredName(first, 'echo');
        assert.match(echoName, /^mcp__fx_/);
        assert.ok(offeredName(first, 'add'), 'add is offered too');
        // The model reads the tools' text content ({ok, content}), in the planned order.
        assert.deepEqual(resultsById(second), {
          'call-echo': { ok: true, content: 'héllo' },
          'call-lookup': { ok: true, content: 'eu-west:grid' },
        });
        assert.deepEqual(second.messages.filter(m => m.role === 'tool').map(m => m.tool_call_id), ['call-echo', 'call-lookup']);

        const echoBlock = await toolBlock(panel, 'call-echo');
        assert.equal(echoBlock.tool, echoName);
        assert.match(echoBlock.label, /^MCP: fx_/);
        assert.match(echoBlock.statusClass, /tool-status-ok/, JSON.stringify(echoBlock));
        assert.match(echoBlock.detail, /héllo/, JSON.stringify(echoBlock));
        assert.equal(echoBlock.banner, false);
        const saved = (await savedChat(h, new URL(fixture.url).pathname.split('/').pop())).at(-1);
        assert.equal(saved.responseStatus, 'complete');
        const toolSegment = saved.segments.find(segment => segment.type === 'tools');
        assert.deepEqual(toolSegment.calls.map(call => call.name), [echoName, offeredName(first, 'lookup')]);
        assert.deepEqual(toolSegment.calls[0].args, { text: 'héllo' });
        assert.equal(toolSegment.results['call-echo'].ok, true);
        assert.deepEqual(JSON.parse(toolSegment.results['call-echo'].summary), { ok: true, content: 'héllo' },
          'the transcript keeps the result');

        // What reached the server (its own log; the pipe may lag the answers a little).
        const modern = config.expected.era === 'modern';
        const isPost = r => r.path === '/mcp' && r.method === 'POST';
        const sign = modern
          ? r => r.headers['mcp-method'] === 'tools/call' && r.headers['mcp-name'] === 'lookup'
          : r => r.headers['mcp-protocol-version'] === '2025-11-25';
        const posts = (await server.waitForLog(logs => logs.filter(isPost).some(sign))).filter(isPost);
        for (const post of posts) {
          assert.equal(post.headers.origin, null, `no Origin reaches ${config.id}: ${JSON.stringify(post)}`);
        }
        if (modern) {
          const call = posts.find(sign);
          assert.equal(call.headers['mcp-protocol-version'], '2026-07-28');
          assert.equal(call.headers['mcp-param-region'], 'eu-west');
        } else if (config.sessions) {
          assert.ok(posts.some(r => r.headers['mcp-session-id']), 'the session id is kept');
        }
        assert.doesNotMatch(server.stderr(), /Invalid Origin header/);
        await panel.close();
        await fixture.page.close();
      } finally {
        unroute();
        await server.stop();
      }
    });
  }

  if (build.label === 'packaged ZIP') return;

  it('without the Origin rule a Python server answers 403, and the probe hint names the setting that fixes it', async () => {
    const h = harness();
    await clearRegistries(h);
    await withServer(h, 'py-stateless-json', async server => {
      const record = mcpRecord('srv-origin', 'guarded', server.url);
      const worker = await h.worker();
      // This worker instance cannot set session rules any more: the existing
      // ones are removed and every further update is refused, as a browser
      // without declarativeNetRequest would.
      await worker.evaluate(async ids => {
        await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: ids });
        globalThis.__updateSessionRules = chrome.declarativeNetRequest.updateSessionRules;
        chrome.declarativeNetRequest.updateSessionRules = () => Promise.reject(new Error('refused by the test'));
      }, ORIGIN_RULE_IDS);
      let refused;
      try {
        assert.deepEqual(await worker.evaluate(() => chrome.declarativeNetRequest.getSessionRules()), []);
        refused = await probe(h, record);
      } finally {
        await worker.evaluate(() => {
          chrome.declarativeNetRequest.updateSessionRules = globalThis.__updateSessionRules;
        });
      }
      assert.equal(refused.ok, false, JSON.stringify(refused));
      // Python's security answers are text/plain, so the code is the unparsable answer's; the status says more.
      assert.equal(refused.error.code, 'MCP_INVALID_JSON', JSON.stringify(refused.error));
      assert.equal(refused.error.details.status, 403);
      assert.match(refused.error.message, /Invalid Origin header/);
      const hint = refused.error.details.hint;
      assert.match(hint, new RegExp(`Origin header \\(${h.extensionOrigin}\\)`), hint);
      assert.match(hint, /could not remove it \(.*refused by the test/, hint);
      assert.match(hint, /allowed_origins/, hint);
      await server.waitForLog(logs => logs.some(r => r.headers.origin === h.extensionOrigin));
      assert.match(server.stderr(), /Invalid Origin header/);

      // With the rules working again the same probe passes, and its request carried no Origin.
      const before = server.logs().length;
      const probed = await probe(h, record);
      assert.equal(probed.ok, true, JSON.stringify(probed));
      const later = (await server.waitForLog(logs => logs.length > before)).slice(before);
      assert.ok(later.every(r => r.headers.origin === null), JSON.stringify(later));
      // The probe's rule is gone again once it ended (the server is not saved).
      assert.deepEqual(await worker.evaluate(() => chrome.declarativeNetRequest.getSessionRules()), []);
    });
  });

  it('a saved Python server keeps its Origin rule: exactly its origin, only for this extension', async () => {
    const h = harness();
    await clearRegistries(h);
    await withServer(h, 'py-stateful-json', async server => {
      await saveServers(h, [mcpRecord('srv-rule', 'ruled', server.url)]);
      const worker = await h.worker();
      const rules = await worker.evaluate(() => chrome.declarativeNetRequest.getSessionRules());
      const origin = new URL(server.url).origin;
      assert.deepEqual(rules.map(rule => [rule.id, rule.condition.urlFilter, rule.condition.initiatorDomains]),
        [[1000, `|${origin}/`, [h.extensionId]]]);
      assert.deepEqual(rules[0].action, { type: 'modifyHeaders', requestHeaders: [{ header: 'origin', operation: 'remove' }] });
      await saveServers(h, [mcpRecord('srv-rule', 'ruled', server.url, { enabled: false })]);
      assert.deepEqual(await worker.evaluate(() => chrome.declarativeNetRequest.getSessionRules()), [],
        'a disabled server has no rule');
    });
  });

  it('hostile servers are bounded and reported by the probe', async () => {
    const h = harness();
    await clearRegistries(h);
    const expectations = [
      ['hostile-many-tools', 'MCP_TOOL_LIMIT', /500 tools/],
      ['hostile-huge-body', 'MCP_RESPONSE_TOO_LARGE', /2 MiB/],
      ['hostile-wrong-id', 'MCP_RESPONSE_ID_MISMATCH', /another request's id/],
      ['hostile-endless-sse', 'TIMEOUT', /did not answer within 12 seconds/],
    ];
    for (const [id, code, hint] of expectations) {
      await withServer(h, id, async server => {
        const answer = await probe(h, mcpRecord(`srv-${id}`, id, server.url));
        assert.equal(answer.ok, false, `${id}: ${JSON.stringify(answer).slice(0, 300)}`);
        assert.equal(answer.error.code, code, `${id}: ${JSON.stringify(answer.error)}`);
        assert.match(answer.error.details.hint, hint, `${id}: ${answer.error.details.hint}`);
      });
    }
    await withServer(h, 'hostile-invalid-schemas', async server => {
      const answer = await probe(h, mcpRecord('srv-invalid', 'invalid', server.url));
      assert.equal(answer.ok, true, JSON.stringify(answer));
      assert.deepEqual(answer.data.tools.map(tool => tool.name), ['echo']);
      assert.deepEqual(answer.data.errors.map(error => [error.code, error.name]), [
        ['INVALID_MCP_SCHEMA', 'root_not_object'],
        ['INVALID_MCP_SCHEMA', 'unknown_type'],
        ['DUPLICATE_OR_INVALID_TOOL', 'echo'],
        ['DUPLICATE_OR_INVALID_TOOL', ''],
      ]);
    });
  });

  it('an unreachable and a half-broken server do not stop a run: the run goes on and the panel shows the notice', async () => {
    const h = harness();
    await clearRegistries(h);
    // A port nothing listens on any more: a server that was stopped.
    const gone = await start('v2-handler-json');
    const goneUrl = gone.url;
    await gone.stop();
    const unrouteGone = h.passThrough(goneUrl);
    try {
      await withServer(h, 'hostile-invalid-schemas', async server => {
        await saveServers(h, [mcpRecord('srv-down', 'down', goneUrl), mcpRecord('srv-half', 'half', server.url)]);
        await useFixtureModel(h, endpoint);
        endpoint.setScript(callingScript(body => [
          { id: 'call-half-echo', name: offeredName(body, 'echo'), args: { text: 'héllo' } },
        ], 'Still working.'));
        const { fixture, panel } = await openPanel(h);
        const before = endpoint.requests.length;
        await send(panel, 'Use what you have.');
        const toast = await panel.waitFor(errorToast, undefined, { timeout: 60_000, message: 'the run notice toast' });
        assert.match(toast, /The MCP server "down" is left out of this run: .*\[MCP_NETWORK_ERROR\]/);
        assert.match(toast, /4 tools of the MCP server "half" left out of this run; the first, "root_not_object"/);
        await answerBanner(panel, 'call-half-echo', 'approve_once');
        await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
        await waitForAnswer(panel, 1, 'the answer of the run with notices');
        const [first, second] = endpoint.requests.slice(before).map(request => request.body);
        const offered = first.tools.map(tool => tool.function.name).filter(name => name.startsWith('mcp__'));
        assert.equal(offered.length, 1, JSON.stringify(offered));
        assert.match(offered[0], /^mcp__half_[0-9a-z]{6}__echo_[0-9a-z]{6}$/);
        assert.deepEqual(resultsById(second)['call-half-echo'], { ok: true, content: 'héllo' });
        assert.match(await panel.evaluate(() => document.querySelector('#messages .msg-assistant:last-of-type .msg-body')?.textContent ?? ''),
          /Still working\./);
        await panel.close();
        await fixture.page.close();
      });
    } finally {
      unrouteGone();
    }
  });


  it('a stateful server restarted between two runs: the lost session is started again and the call succeeds', async () => {
    const h = harness();
    await clearRegistries(h);
    const first = await start('v2-transport-stateful');
    const { port } = new URL(first.url);
    const unroute = h.passThrough(first.url);
    let second = null;
    try {
      await saveServers(h, [mcpRecord('srv-restart', 'restart', first.url)]);
      await useFixtureModel(h, endpoint);
      endpoint.setScript(callingScript(body => [
        { id: 'call-restart', name: offeredName(body, 'echo'), args: { text: 'héllo' } },
      ], 'Echoed.'));
      const runOnce = async () => {
        const { fixture, panel } = await openPanel(h);
        const before = endpoint.requests.length;
        await send(panel, 'Echo it.');
        await answerBanner(panel, 'call-restart', 'approve_once');
        await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
        await waitForAnswer(panel, 1, 'the answer of the echo run');
        assert.deepEqual(resultsById(endpoint.requests[before + 1].body)['call-restart'], { ok: true, content: 'héllo' });
        await panel.close();
        await fixture.page.close();
      };
      await runOnce();
      const session = first.logs().find(r => r.headers['mcp-session-id'])?.headers['mcp-session-id'];
      assert.ok(session, 'the first server issued a session');
      await first.stop();
      second = await start('v2-transport-stateful', { port: Number(port) });
      await runOnce();
      const posts = second.logs().filter(r => r.method === 'POST');
      assert.equal(posts[0].headers['mcp-session-id'], session, 'the worker first tried the session it knew');
      const fresh = posts.map(r => r.headers['mcp-session-id']).filter(id => id && id !== session);
      assert.ok(fresh.length > 0, `then it worked in a new session: ${JSON.stringify(posts.map(r => r.headers))}`);
    } finally {
      unroute();
      await first.stop();
      await second?.stop();
    }
  });


  it('after the worker was stopped, a fresh instance negotiates again and the Python server still sees no Origin', async () => {
    const h = harness();
    await clearRegistries(h);
    await withServer(h, 'py-stateful-sse', async server => {
      await saveServers(h, [mcpRecord('srv-wake', 'wake', server.url)]);
      const stop = await h.stopWorker();
      assert.ok(stop.stoppedTargets.length >= 1, 'the worker was running and is stopped');
      await useFixtureModel(h, endpoint);
      endpoint.setScript(callingScript(body => [
        { id: 'call-wake', name: offeredName(body, 'echo'), args: { text: 'héllo' } },
      ], 'Awake.'));
      const { fixture, panel } = await openPanel(h);
      const before = endpoint.requests.length;
      await send(panel, 'Echo after the restart.');
      await answerBanner(panel, 'call-wake', 'approve_once');
      await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
      await waitForAnswer(panel, 1, 'the answer after the worker restart');
      assert.deepEqual(resultsById(endpoint.requests[before + 1].body)['call-wake'], { ok: true, content: 'héllo' });
      const posts = (await server.waitForLog(logs => logs.some(r => r.headers['mcp-method'] === 'tools/call')))
        .filter(r => r.method === 'POST');
      assert.ok(posts.every(r => r.headers.origin === null), JSON.stringify(posts.map(r => r.headers)));
      assert.ok(posts.every(r => r.headers['mcp-protocol-version'] === '2026-07-28'));
      await panel.close();
      await fixture.page.close();
    });
  });

});
