// All of the panel's CSS. It lives in the panel's shadow root, so the host page's rules cannot
// reach in and these cannot leak out; `all: initial` at the top stops inherited host styles.
// Containment keeps the work of an update where it happens: the dock is its own layout, style and
// paint root (the page never lays out or repaints because the panel changed, nor the panel because
// the page did), and so is each list row, at its fixed height: a new event restyles and lays out
// the rows and figures it changed, not the panel.
export const styles: string = `
:host { all: initial; }
.mount { all: initial; display: contents; }
.mount.embedded { display: block; height: 100%; }
.root {
  container: panel / inline-size;
  --bg: #ffffff; --bg2: #f6f7f9; --bg3: #eceef2; --hover: #f1f3f6;
  --fg: #171a21; --fg2: #4b5262; --fg3: #5f6776; --line: #e3e6eb; --line2: #eef0f3;
  --accent: #4656e0; --accent-bg: #eaedfd; --accent-fg: #ffffff;
  --ok: #0f6e3f; --ok-bg: #e3f5ea; --warn: #9a5a00; --warn-bg: #fdf1dc; --bad: #b42622; --bad-bg: #fde8e7;
  --model: #4f6ef7; --stream: #a9b9ff; --tool: #9b51e0; --tool-bg: #f3e9fc; --valid: #0f9b68; --retry: #d98a10;
  /* The same hues dark enough for text on their tints (WCAG AA). */
  --model-text: #3b52d6; --tool-text: #7a33c4; --valid-text: #0b7a52; --retry-text: #9a5a00;
  --round: #d5d9e2; --grid-line: rgba(20, 30, 60, .06);
  --shadow: 0 -6px 24px rgba(15, 20, 35, .12);
  --mono: ui-monospace, 'SF Mono', SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace;
  --sans: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
  font: 12.5px/1.45 var(--sans); letter-spacing: normal; color: var(--fg); background: var(--bg);
  color-scheme: light; text-align: left;
  /* Clipped, not hidden: nothing (a focus, a scrollIntoView) can scroll the toolbar out of the panel. */
  display: flex; flex-direction: column; height: 100%; width: 100%; box-sizing: border-box; overflow: clip;
  -webkit-font-smoothing: antialiased;
}
.root[data-theme='dark'] {
  --bg: #121419; --bg2: #181b22; --bg3: #232731; --hover: #1d2129;
  --fg: #e7e9ef; --fg2: #a9b0be; --fg3: #8e96a6; --line: #2a2f3a; --line2: #20242c;
  --accent: #8d98ff; --accent-bg: #252b4d; --accent-fg: #0d1030;
  --ok: #4cc784; --ok-bg: #143223; --warn: #f2b65a; --warn-bg: #35280f; --bad: #ff736b; --bad-bg: #3b1a1a;
  --model: #6f8bff; --stream: #33449a; --tool: #bf8bff; --tool-bg: #2c2140; --valid: #3fcf95; --retry: #f2b65a;
  --model-text: #8da2ff; --tool-text: #c9a0ff; --valid-text: #3fcf95; --retry-text: #f2b65a;
  --round: #3a4050; --grid-line: rgba(255, 255, 255, .05);
  --shadow: 0 -6px 24px rgba(0, 0, 0, .45);
  color-scheme: dark;
}
*, *::before, *::after { box-sizing: border-box; }
h2, h3, p, ol, ul, dl, dd, pre { margin: 0; }
ol, ul { padding: 0; list-style: none; }
code { font-family: var(--mono); font-size: 11.5px; }
button { font: inherit; color: inherit; background: none; border: 0; cursor: pointer; padding: 0; text-align: inherit; }
button:disabled { cursor: default; opacity: .45; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: -2px; border-radius: 4px; }
input, select { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 4px 7px; min-width: 0; }
input:focus-visible, select:focus-visible { outline: 2px solid var(--accent); outline-offset: -1px; }
details > summary { cursor: pointer; color: var(--fg2); margin: 6px 0 2px; font-size: 11.5px; }
.muted { color: var(--fg3); }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.ok-text { color: var(--ok); } .bad-text { color: var(--bad); } .warn-text { color: var(--warn); }
.link { color: var(--accent); font-weight: 600; }
.link:hover { text-decoration: underline; }
.spacer { flex: 1; }

/* toolbar */
.toolbar { display: flex; align-items: center; gap: 2px; padding: 5px 8px 5px 10px; border-bottom: 1px solid var(--line); background: var(--bg2); flex: none; min-height: 38px; contain: layout paint style; }
.toolbar-actions, .toolbar-end { display: flex; align-items: center; gap: 2px; min-width: 0; }
.toolbar-end { flex: none; }
.brand { display: flex; align-items: center; gap: 6px; font-weight: 700; margin-right: 10px; white-space: nowrap; font-size: 13px; }
.brand small { color: var(--fg3); font-weight: 500; font-size: 12px; }
.logo { width: 18px; height: 18px; flex: none; fill: none; stroke: var(--accent); stroke-width: 3; }
.tool-button { display: inline-flex; align-items: center; gap: 6px; padding: 4px 9px; border-radius: 6px; color: var(--fg2); white-space: nowrap; font-weight: 500; }
.tool-button:not(:disabled):hover { background: var(--bg3); color: var(--fg); }
.tool-button.icon { width: 28px; height: 28px; justify-content: center; padding: 0; font-size: 14px; }
.record-dot { width: 8px; height: 8px; border-radius: 50%; background: var(--bad); box-shadow: 0 0 0 3px var(--bad-bg); }
.record.paused .record-dot { background: var(--fg3); box-shadow: none; border-radius: 1px; width: 7px; }
.record:not(.paused) { color: var(--fg); }
.divider { width: 1px; height: 18px; background: var(--line); margin: 0 6px; }
.counter { margin-right: 8px; font-variant-numeric: tabular-nums; font-size: 11.5px; }
.dock-icon { display: block; width: 14px; height: 12px; border: 1.5px solid currentColor; border-radius: 2px; position: relative; }
.dock-icon::after { content: ''; position: absolute; background: currentColor; }
.dock-icon.right::after { top: 0; bottom: 0; right: 0; width: 4px; }
.dock-icon.bottom::after { left: 0; right: 0; bottom: 0; height: 4px; }

/* notes */
.notes { flex: none; border-bottom: 1px solid var(--line); }
.note { display: flex; gap: 10px; align-items: baseline; padding: 4px 12px; font-size: 11.5px; }
.note + .note { border-top: 1px solid var(--line2); }
.note.info { color: var(--fg2); background: var(--bg2); }
.note.warn { color: var(--warn); background: var(--warn-bg); }
.note.bad { color: var(--bad); background: var(--bad-bg); }

/* body */
.body { display: flex; flex: 1; min-height: 0; }
.scroll { overflow: auto; flex: 1; min-height: 0; position: relative; contain: layout paint style; }
.windowed { position: relative; contain: layout style; }
.windowed-row { position: absolute; left: 0; right: 0; contain: strict; }
.empty { color: var(--fg3); padding: 28px 24px; text-align: center; line-height: 1.6; }
.empty code { color: var(--fg2); }

/* run list */
.runs { width: 300px; flex: none; display: flex; flex-direction: column; border-right: 1px solid var(--line); min-height: 0; background: var(--bg); }
.runs-filter { display: flex; flex-wrap: wrap; gap: 6px; padding: 8px 8px 4px; }
/* In the side column the search has a line of its own, so its placeholder fits. */
.runs-filter input, .runs-filter select { flex: 1 1 100%; }
/* The list's end scrolls clear of a dev indicator in the page's bottom-left corner (Next.js's: 36 px, 20 px in). */
.runs > .scroll { padding-bottom: 64px; }
.runs-count { padding: 2px 10px 6px; color: var(--fg3); font-size: 11px; border-bottom: 1px solid var(--line); }
.run-row { display: flex; flex-direction: column; justify-content: center; gap: 3px; width: 100%; height: 100%; padding: 0 10px 0 12px; border-bottom: 1px solid var(--line2); border-left: 3px solid transparent; }
.run-row:hover { background: var(--hover); }
.run-row[aria-selected='true'] { background: var(--accent-bg); border-left-color: var(--accent); }
.run-title { display: flex; align-items: center; gap: 7px; font-weight: 600; white-space: nowrap; min-width: 0; }
.run-title .label { overflow: hidden; text-overflow: ellipsis; flex: 1; min-width: 0; }
.run-id { font-family: var(--mono); font-size: 10.5px; color: var(--fg3); font-weight: 500; flex: none; }
.run-meta { display: flex; gap: 0; color: var(--fg3); font-size: 11px; white-space: nowrap; overflow: hidden; font-variant-numeric: tabular-nums; padding-left: 15px; }
.run-meta > span + span::before { content: '·'; margin: 0 5px; color: var(--fg3); }
.dot { width: 8px; height: 8px; border-radius: 50%; flex: none; background: var(--fg3); }
.dot.ok { background: var(--ok); } .dot.error { background: var(--bad); } .dot.aborted { background: var(--warn); }
.dot.problem { background: var(--bg); box-shadow: inset 0 0 0 2.5px var(--bad); }
.dot.incomplete { background: var(--bg); box-shadow: inset 0 0 0 2px var(--fg3); }
.dot.running { background: var(--accent); box-shadow: 0 0 0 3px var(--accent-bg); }
/* Nothing pulses: an animation restyles the panel on every frame of the page for as long as a run runs. */
.bar.retrieval { background: var(--valid); opacity: .55; }

/* run detail */
.detail { flex: 1; display: flex; flex-direction: column; min-width: 0; min-height: 0; container: detail / inline-size; }
.empty-detail { justify-content: center; }
.detail-head { padding: 8px 14px 6px; display: flex; flex-direction: column; gap: 4px; flex: none; contain: layout paint style; }
.detail-title { display: flex; align-items: center; gap: 8px; min-width: 0; }
.detail-title h2 { font-size: 14px; font-weight: 650; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.stats { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 16px; }
.stat { color: var(--fg3); font-variant-numeric: tabular-nums; white-space: nowrap; font-size: 12px; }
.stat b { color: var(--fg); font-weight: 600; }
button.stat.link { border: 0; background: none; padding: 0; font: inherit; font-size: 12px; color: var(--accent); cursor: pointer; text-decoration: underline; }
.run-notes { display: flex; gap: 14px; font-size: 12px; }
.badge { flex: none; display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 10.5px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; background: var(--bg3); color: var(--fg2); }
.badge.ok { color: var(--ok); background: var(--ok-bg); }
.badge.error, .badge.problem { color: var(--bad); background: var(--bad-bg); }
.badge.aborted { color: var(--warn); background: var(--warn-bg); }
.badge.running { color: var(--accent); background: var(--accent-bg); }
.badge.incomplete { color: var(--fg2); }
[role='tablist'] { display: flex; gap: 4px; padding: 0 10px; border-bottom: 1px solid var(--line); flex: none; overflow-x: auto; scrollbar-width: none; }
[role='tab'] { padding: 6px 8px 5px; border-bottom: 2px solid transparent; color: var(--fg2); white-space: nowrap; font-weight: 500; }
[role='tab']:hover { color: var(--fg); }
[role='tab'][aria-selected='true'] { color: var(--fg); border-bottom-color: var(--accent); font-weight: 600; }
.count { display: inline-block; margin-left: 5px; padding: 0 5px; border-radius: 8px; font-size: 10.5px; font-weight: 700; }
.count.warn { background: var(--warn-bg); color: var(--warn); }
.view-panel { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.split { display: flex; flex-direction: column; flex: 1; min-height: 0; }
@container detail (min-width: 820px) {
  .split { flex-direction: row; }
  .split > .waterfall-frame { flex: 1 1 60%; min-width: 0; }
  .split > .inspector { flex: 1 1 40%; min-width: 300px; border-top: 0; border-left: 1px solid var(--line); }
}

/* waterfall */
.waterfall-frame { flex: 1 1 50%; min-height: 90px; display: flex; flex-direction: column; }
.waterfall-empty { flex: 1; }
.axis { position: sticky; top: 0; z-index: 2; display: flex; background: var(--bg); border-bottom: 1px solid var(--line); font-size: 10.5px; color: var(--fg3); font-family: var(--mono); }
.axis .names { width: clamp(170px, 50%, 400px); flex: none; padding: 5px 12px; font-family: var(--sans); font-size: 11px; }
.axis .ticks { position: relative; flex: 1; margin: 0 16px 0 6px; }
.axis .tick { position: absolute; top: 5px; transform: translateX(-50%); white-space: nowrap; }
.axis .tick:first-child { transform: none; }
.axis .tick.end { transform: translateX(-100%); }
.row { display: flex; align-items: stretch; width: 100%; height: 100%; border-bottom: 1px solid var(--line2); }
.row:hover { background: var(--hover); }
.row[aria-current='true'] { background: var(--accent-bg); }
.row .names { width: clamp(170px, 50%, 400px); flex: none; display: flex; align-items: center; gap: 6px; padding: 0 10px 0 12px; overflow: hidden; white-space: nowrap; }
.row .name { font-weight: 550; flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.row .what { overflow: hidden; text-overflow: ellipsis; color: var(--fg3); font-family: var(--mono); font-size: 11px; min-width: 0; flex: 1; }
.row .dur { margin-left: auto; color: var(--fg2); font-family: var(--mono); font-size: 11px; padding-left: 6px; flex: none; font-variant-numeric: tabular-nums; }
.row.round { background: var(--bg2); }
.row.round:hover { background: var(--hover); }
.row.round[aria-current='true'] { background: var(--accent-bg); }
.row.round .name { font-weight: 700; flex: none; }
/* One line of whole chips: where a chip has no room it drops out of view whole, never cut (its row below has the figure). */
.legend { display: flex; flex-wrap: wrap; column-gap: 5px; max-height: 1.5em; min-width: 0; overflow: hidden; font-family: var(--mono); font-size: 10.5px; color: var(--fg2); }
.legend > span { display: inline-flex; align-items: center; gap: 2px; }
.legend > span::before { content: ''; width: 7px; height: 7px; border-radius: 2px; }
.legend .model::before { background: var(--model); } .legend .tool::before { background: var(--tool); }
.legend .approval::before { background: var(--warn); }
.lane .escalation { position: absolute; right: 4px; top: 50%; transform: translateY(-50%); padding: 0 5px; border-radius: 8px; background: var(--bg); border: 1px solid var(--warn); color: var(--warn); font-family: var(--mono); font-size: 10.5px; white-space: nowrap; pointer-events: none; }
.row.round.bad .name { color: var(--bad); }
.row:not(.round) .names { padding-left: 28px; }
.row .lane { position: relative; flex: 1; margin: 0 16px 0 6px; overflow: hidden; background: linear-gradient(to right, var(--grid-line) 1px, transparent 1px) var(--grid-offset, 0px) 0 / var(--grid, 25%) 100% repeat-x; }
.zoom-bar { display: flex; align-items: center; gap: 2px; padding: 2px 8px 2px 12px; border-bottom: 1px solid var(--line2); flex: none; font-size: 11px; min-height: 26px; }
.zoom-bar > .muted { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.zoom-bar .tool-button.icon { width: 24px; height: 22px; }
.chevron { width: 10px; height: 10px; border-radius: 3px; flex: none; background: var(--round); }
.chevron.ok { background: var(--ok); } .chevron.bad { background: var(--bad); } .chevron.running { background: var(--accent); }
.bar { position: absolute; top: 7px; height: 12px; border-radius: 3px; min-width: 2px; }
.bar.round { top: 9px; height: 8px; background: var(--round); border-radius: 4px; }
.bar.round.bad { background: color-mix(in srgb, var(--bad) 45%, var(--round)); }
.bar.model { background: var(--model); overflow: hidden; }
.bar.model .streaming { position: absolute; top: 0; bottom: 0; right: 0; background: repeating-linear-gradient(-45deg, var(--stream) 0 3px, var(--model) 3px 6px); }
.bar.tool { background: var(--tool); }
.bar.setup { background: repeating-linear-gradient(-45deg, var(--tool-bg) 0 3px, color-mix(in srgb, var(--tool) 35%, transparent) 3px 6px); }
.bar.approval { background: repeating-linear-gradient(90deg, var(--warn) 0 4px, transparent 4px 7px); border: 1px solid var(--warn); }
.bar.bad { background: var(--bad); }
.bar.validation { background: var(--valid); }
.bar.validation.bad { background: var(--bad); }
.bar.retry { background: repeating-linear-gradient(90deg, var(--retry) 0 2px, transparent 2px 5px); border-left: 3px solid var(--retry); border-radius: 0; }
.bar.agent { background: repeating-linear-gradient(90deg, var(--tool) 0 6px, color-mix(in srgb, var(--tool) 55%, transparent) 6px 9px); }
.row.nested { background: color-mix(in srgb, var(--tool) 4%, transparent); }
.kind { font-size: 9.5px; font-weight: 800; letter-spacing: .05em; padding: 1px 4px; border-radius: 3px; flex: none; min-width: 44px; text-align: center; }
.kind.model { color: var(--model-text); background: color-mix(in srgb, var(--model) 12%, transparent); }
.kind.tool { color: var(--tool-text); background: var(--tool-bg); }
.kind.validation { color: var(--valid-text); background: color-mix(in srgb, var(--valid) 12%, transparent); }
.kind.approval { color: var(--warn); background: var(--warn-bg); }
.kind.retry { color: var(--retry-text); background: color-mix(in srgb, var(--retry) 14%, transparent); }
.kind.retrieval { color: var(--model-text); background: color-mix(in srgb, var(--model) 12%, transparent); }
.kind.bad { color: var(--bad); background: var(--bad-bg); }
.kind.agent { color: var(--tool-text); background: var(--tool-bg); }

/* inspector */
.retrieved { margin: 0; padding-left: 18px; display: flex; flex-direction: column; gap: 6px; }
.inspector { flex: 1 1 50%; min-height: 140px; display: flex; flex-direction: column; border-top: 1px solid var(--line); min-width: 0; }
.inspector-head { display: flex; align-items: baseline; gap: 8px; padding: 7px 12px 3px; flex: none; white-space: nowrap; overflow: hidden; }
.inspector-head strong { font-weight: 650; }
.inspector-body { overflow: auto; flex: 1; min-height: 0; padding: 10px 12px 14px; display: flex; flex-direction: column; gap: 8px; contain: layout paint style; }
.messages { display: flex; flex-direction: column; gap: 8px; }
/* A long prompt unfolded lays out and paints only the messages in view (folded, the few shown need no observer). */
.messages.long > li { content-visibility: auto; contain-intrinsic-size: auto 90px; }
.message { border: 1px solid var(--line); border-radius: 8px; overflow: hidden; background: var(--bg); }
.message.added { border-color: var(--ok); box-shadow: inset 3px 0 0 var(--ok); }
.message.removed { border-color: var(--bad); box-shadow: inset 3px 0 0 var(--bad); opacity: .85; }
.message-head { display: flex; gap: 8px; align-items: center; padding: 3px 9px; background: var(--bg2); border-bottom: 1px solid var(--line2); font-size: 11px; }
.message-head .role { font-weight: 700; text-transform: uppercase; letter-spacing: .04em; color: var(--fg2); }
.message.user .role { color: var(--accent); } .message.assistant .role { color: var(--model); } .message.tool .role { color: var(--tool); }
.message-head .index { color: var(--fg3); font-family: var(--mono); font-size: 10.5px; }
.message-head .change { margin-left: auto; font-weight: 700; }
.change.added { color: var(--ok); } .change.removed { color: var(--bad); }
.message-text { white-space: pre-wrap; overflow-wrap: anywhere; padding: 7px 10px; }
.reasoning { margin: 0 10px; border-left: 2px dashed var(--model); padding-left: 8px; }
.reasoning .message-text { color: var(--fg2); font-style: italic; padding: 4px 0 6px; }
.attachment { margin: 6px 10px; font-size: 11px; color: var(--fg2); font-family: var(--mono); }
.attachment.image { display: inline-flex; flex-direction: column; gap: 3px; }
.attachment.image img { max-width: 120px; max-height: 90px; object-fit: contain; border: 1px solid var(--line); border-radius: 4px; background: var(--bg2); }
.attachment.file { border: 1px solid var(--line); border-radius: 4px; padding: 4px 8px; display: inline-block; }
.attachment-missing { padding: 8px; border: 1px dashed var(--line); border-radius: 4px; max-width: 240px; overflow-wrap: anywhere; }
.fold { text-align: center; padding: 2px; }
.call { margin: 8px 10px; border: 1px solid var(--line); border-left: 3px solid var(--tool); border-radius: 6px; padding: 6px 8px; background: var(--bg); }
.call.bad { border-left-color: var(--bad); }
.call-name { font-weight: 650; font-family: var(--mono); font-size: 12px; }
.call-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 8px; margin-top: 4px; }
.call.bad .call-grid > div:last-child pre { color: var(--bad); background: var(--bad-bg); }
.caption { font-size: 10.5px; font-weight: 700; text-transform: uppercase; letter-spacing: .05em; color: var(--fg3); margin-top: 4px; }
pre { font-family: var(--mono); font-size: 11.5px; line-height: 1.5; white-space: pre-wrap; overflow-wrap: anywhere; margin: 3px 0; background: var(--bg2); padding: 6px 8px; border-radius: 6px; color: var(--fg); }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; font-variant-numeric: tabular-nums; }
.kv dt { color: var(--fg3); } .kv dd { margin: 0; overflow-wrap: anywhere; }
.kv dt.indent { padding-left: 12px; font-family: var(--mono); font-size: 11.5px; }
.errors { padding-left: 18px; list-style: disc; color: var(--bad); }
.errors code { color: inherit; }
.catalogue { display: flex; flex-direction: column; gap: 8px; }
.catalogue details { padding: 0 10px 6px; }

/* fork: re-run from a round, and the compare view */
.fork-text { color: var(--accent); }
.agent-text { color: var(--tool-text); }
.fork-editor { display: flex; flex-direction: column; gap: 8px; }
.fork-messages { display: flex; flex-direction: column; gap: 8px; }
.fork-messages label.message-head { cursor: text; }
.fork-editor textarea { display: block; width: 100%; min-height: 56px; resize: vertical; border: 0; padding: 7px 10px; font: 12px/1.5 var(--mono); color: var(--fg); background: var(--bg); }
.fork-editor textarea:focus-visible { outline: 2px solid var(--accent); outline-offset: -2px; }
.fork-options { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; border: 1px solid var(--line); border-radius: 8px; padding: 6px 10px 8px; margin: 0; }
.fork-options legend { color: var(--fg3); font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .05em; padding: 0 4px; }
.fork-options label { display: flex; flex-direction: column; gap: 2px; color: var(--fg2); font-size: 11.5px; }
.fork-options label.check { flex-direction: row; align-items: center; gap: 6px; }
.fork-options input:not([type='checkbox']) { width: 150px; }
.fork-actions { display: flex; flex-wrap: wrap; align-items: baseline; gap: 10px; }
.fork-actions .primary { padding: 5px 12px; }
.compare { padding: 10px 14px 14px; display: flex; flex-direction: column; gap: 10px; overflow: auto; flex: 1; min-height: 0; }
.compare > * { flex: none; }
.compare-grid { display: flex; flex-direction: column; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.compare-row { display: grid; grid-template-columns: minmax(90px, auto) 1fr 1fr; gap: 10px; padding: 5px 10px; border-bottom: 1px solid var(--line2); width: 100%; align-items: baseline; }
.compare-row:last-child { border-bottom: 0; }
.compare-row.head { background: var(--bg2); color: var(--fg3); font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; }
.compare-row:not(.head):hover { background: var(--hover); }
.compare-row[aria-current='true'] { background: var(--accent-bg); }
.compare-row.differs { box-shadow: inset 3px 0 0 var(--warn); }
.compare-row.first { background: var(--warn-bg); }
.compare-row .pill { margin-left: 6px; background: var(--warn); color: var(--bg); }
.compare-row .answer { font-family: var(--mono); font-size: 11.5px; overflow-wrap: anywhere; white-space: pre-wrap; }
.compare-answers { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 10px; }
.compare-answers pre.changed { box-shadow: inset 3px 0 0 var(--warn); }

/* chain */
.chain { padding: 12px 14px; display: flex; flex-direction: column; gap: 8px; }
.advisors { display: flex; flex-direction: column; gap: 5px; max-width: 760px; }
.advisors ol { display: flex; flex-direction: column; gap: 5px; }
.chain-caption, .loop-caption { font-size: 11px; font-weight: 700; color: var(--fg3); text-transform: uppercase; letter-spacing: .05em; }
.loop-caption { color: var(--accent); text-transform: none; letter-spacing: 0; font-family: var(--mono); font-weight: 600; padding: 2px 0; }
.advisor { display: flex; gap: 10px; align-items: center; padding: 7px 11px; border: 1px solid var(--line); border-radius: 8px; background: var(--bg); }
.advisor-name { font-weight: 650; }
.advisor .order { margin-left: auto; font-family: var(--mono); color: var(--fg3); font-size: 11px; }
.advisor.tool-loop { border-color: var(--accent); }
.advisor.model { border-style: dashed; color: var(--fg2); }
.pill { font-size: 10.5px; font-weight: 700; padding: 0 6px; border-radius: 8px; background: var(--accent-bg); color: var(--accent); }
.loop { border: 2px dashed color-mix(in srgb, var(--accent) 60%, transparent); border-radius: 12px; padding: 8px 10px; background: color-mix(in srgb, var(--accent) 4%, transparent); }
.warning { color: var(--warn); background: var(--warn-bg); border-radius: 8px; padding: 8px 12px; max-width: 760px; }

/* approvals */
.approvals { border-bottom: 1px solid var(--line); background: var(--warn-bg); padding: 6px 12px; flex: none; }
.approval-request { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; padding: 3px 0; }
.approval-request code { font-family: var(--mono); font-size: 11.5px; }
.approval-path { color: var(--fg2); font-size: 11.5px; }
.primary { background: var(--accent); color: var(--accent-fg); border-radius: 6px; padding: 3px 10px; font-weight: 600; }
.secondary { border: 1px solid var(--line); border-radius: 6px; padding: 3px 10px; background: var(--bg); }
.crashed { padding: 16px; color: var(--bad); display: flex; flex-direction: column; gap: 8px; align-items: flex-start; }

/* mounting: the floating toggle and the dock */
.dock { position: fixed; z-index: 2147483000; display: flex; flex-direction: column; box-shadow: 0 -6px 24px rgba(15, 20, 35, .16); contain: strict; will-change: transform; }
.dock.bottom { left: 0; right: 0; bottom: 0; }
.dock.right { top: 0; right: 0; bottom: 0; box-shadow: -6px 0 24px rgba(15, 20, 35, .16); }
.resize { position: absolute; z-index: 3; background: transparent; }
.resize:hover, .resize:focus-visible { background: rgba(70, 86, 224, .5); outline: none; }
.dock.bottom .resize { height: 5px; left: 0; right: 0; top: 0; cursor: ns-resize; }
.dock.right .resize { width: 5px; top: 0; bottom: 0; left: 0; cursor: ew-resize; }
@container detail (max-width: 640px) {
  .zoom-hint { display: none; }
  .legend { display: none; }
  .kind { min-width: 0; width: 8px; height: 8px; padding: 0; font-size: 0; border-radius: 2px; background: currentColor; }
  .kind.tool { background: var(--tool); } .kind.bad { background: var(--bad); }
  .row:not(.round) .names { padding-left: 22px; }
}
@container panel (max-width: 900px) {
  .runs { width: 220px; }
  .brand small, .counter, .divider { display: none; }
  .tool-button { padding: 4px 6px; }
}
@container panel (max-width: 560px) {
  .toolbar { flex-wrap: wrap; row-gap: 2px; padding: 4px 6px 4px 8px; }
  .toolbar .spacer { display: none; }
  .toolbar-end { order: 1; margin-left: auto; }
  .toolbar-actions { order: 2; flex: 1 1 100%; overflow-x: auto; scrollbar-width: thin; }
  /* On a phone the toolbar stays put and one scroller holds the rest: the run shown first, its
     timeline in view at once, then the runs; its end leaves the bottom-left corner to a framework's
     dev indicator (Next.js's: a 36 px button 20 px from the edges), so no run row ends under it. */
  .body { flex-direction: column; overflow-y: auto; overscroll-behavior: contain; padding-bottom: 64px; }
  .detail { order: -1; flex: none; }
  .view-panel, .split { flex: none; }
  .split > .waterfall-frame { flex: none; height: calc(52px + 26px * min(var(--timeline-rows, 8), 8)); min-height: 0; }
  .split > .inspector { flex: none; height: 300px; }
  .runs { width: auto; flex: none; border-right: 0; border-top: 1px solid var(--line); }
  .runs-filter input { flex: 1 1 0; }
  .runs-filter select { flex: none; }
  /* Whole rows only (four at most; the count says how many there are): a row cut in half says nothing. */
  .runs > .scroll { flex: none; max-height: calc(var(--run-row) * 4); padding-bottom: 0; }
  .run-meta { padding-left: 0; }
  .detail-head { padding: 6px 10px 4px; }
}
`
