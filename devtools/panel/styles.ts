// All of the panel's CSS. It lives in the panel's shadow root, so the host page's styles cannot
// reach in and these cannot leak out.
export const styles = `
:host { all: initial; }
.root {
  --bg: #ffffff; --bg2: #f6f7f9; --bg3: #eceef2; --fg: #1b1f27; --fg2: #5b6272; --fg3: #8a91a0;
  --line: #e1e4ea; --accent: #4254d9; --accent-bg: #e9ecfd; --ok: #1d8a4f; --warn: #b26b00; --bad: #c9302c;
  --model: #5b7cfa; --stream: #9db2ff; --tool: #b06cf0; --tool-bad: #e0544f; --valid: #20a36b; --retry: #e59b22;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font: 12.5px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  color: var(--fg); background: var(--bg);
  display: flex; flex-direction: column; height: 100%; width: 100%; box-sizing: border-box; overflow: hidden;
}
.root[data-theme='dark'] {
  --bg: #16181d; --bg2: #1d2027; --bg3: #262a33; --fg: #e6e8ee; --fg2: #a3a9b7; --fg3: #737b8c;
  --line: #2e333d; --accent: #8c9bff; --accent-bg: #272d4d; --ok: #46c37b; --warn: #f0b44c; --bad: #ff6b64;
  --model: #6d8cff; --stream: #3c4f99; --tool: #c08cff; --tool-bad: #ff6b64; --valid: #3fcf8e; --retry: #f0b44c;
}
*, *::before, *::after { box-sizing: border-box; }
button { font: inherit; color: inherit; background: none; border: 0; cursor: pointer; padding: 0; }
button:focus-visible, input:focus-visible, select:focus-visible, [tabindex]:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; border-radius: 4px; }
.toolbar { display: flex; align-items: center; gap: 4px; padding: 6px 8px; border-bottom: 1px solid var(--line); background: var(--bg2); flex: none; }
.brand { font-weight: 650; margin-right: 8px; white-space: nowrap; }
.brand small { color: var(--fg3); font-weight: 500; margin-left: 6px; }
.spacer { flex: 1; }
.tool-button { padding: 4px 8px; border-radius: 6px; color: var(--fg2); white-space: nowrap; }
.tool-button:hover { background: var(--bg3); color: var(--fg); }
.tool-button[aria-pressed='true'] { background: var(--accent-bg); color: var(--accent); }
.note { padding: 4px 10px; font-size: 11.5px; color: var(--warn); background: var(--bg2); border-bottom: 1px solid var(--line); }
.body { display: flex; flex: 1; min-height: 0; }
.runs { width: 270px; flex: none; display: flex; flex-direction: column; border-right: 1px solid var(--line); min-height: 0; }
.runs-filter { display: flex; gap: 4px; padding: 6px; border-bottom: 1px solid var(--line); }
.runs-filter input, .runs-filter select { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 3px 6px; min-width: 0; }
.runs-filter input { flex: 1; }
.scroll { overflow: auto; flex: 1; min-height: 0; position: relative; }
.run-row { display: block; width: 100%; text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); height: 58px; }
.run-row:hover { background: var(--bg2); }
.run-row[aria-selected='true'] { background: var(--accent-bg); }
.run-title { display: flex; align-items: center; gap: 6px; font-weight: 550; white-space: nowrap; overflow: hidden; }
.run-title span.label { overflow: hidden; text-overflow: ellipsis; }
.run-meta { color: var(--fg3); font-size: 11.5px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; margin-top: 2px; font-variant-numeric: tabular-nums; }
.dot { width: 8px; height: 8px; border-radius: 50%; flex: none; background: var(--fg3); }
.dot.ok { background: var(--ok); } .dot.error { background: var(--bad); } .dot.aborted { background: var(--warn); }
.dot.running { background: var(--accent); animation: pulse 1s infinite alternate; }
@keyframes pulse { from { opacity: .35 } to { opacity: 1 } }
.empty { color: var(--fg3); padding: 24px; text-align: center; }
.detail { flex: 1; display: flex; flex-direction: column; min-width: 0; min-height: 0; }
.detail-head { padding: 8px 12px; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 14px; }
.detail-head h2 { font-size: 13.5px; margin: 0; font-weight: 650; max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.stat { color: var(--fg2); font-variant-numeric: tabular-nums; white-space: nowrap; }
.stat b { color: var(--fg); font-weight: 600; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 11px; font-weight: 600; background: var(--bg3); color: var(--fg2); }
.badge.ok { color: var(--ok); } .badge.error { color: var(--bad); } .badge.aborted { color: var(--warn); } .badge.running { color: var(--accent); }
[role='tablist'] { display: flex; gap: 2px; padding: 4px 8px 0; border-bottom: 1px solid var(--line); flex: none; }
[role='tab'] { padding: 5px 10px; border-bottom: 2px solid transparent; color: var(--fg2); }
[role='tab'][aria-selected='true'] { color: var(--fg); border-bottom-color: var(--accent); font-weight: 600; }
.split { display: flex; flex-direction: column; flex: 1; min-height: 0; }
.waterfall { flex: 1 1 55%; min-height: 80px; overflow: auto; position: relative; }
.axis { position: sticky; top: 0; z-index: 1; display: flex; height: 22px; background: var(--bg); border-bottom: 1px solid var(--line); font-size: 10.5px; color: var(--fg3); font-family: var(--mono); }
.axis .names { width: 38%; flex: none; padding: 3px 10px; }
.axis .ticks { position: relative; flex: 1; margin-right: 12px; }
.axis .tick { position: absolute; top: 3px; transform: translateX(-50%); white-space: nowrap; }
.axis .tick:first-child { transform: none; }
.row { display: flex; align-items: center; width: 100%; height: 26px; text-align: left; border-bottom: 1px solid color-mix(in srgb, var(--line) 55%, transparent); }
.row:hover { background: var(--bg2); }
.row[aria-current='true'] { background: var(--accent-bg); }
.row .names { width: 38%; flex: none; display: flex; align-items: center; gap: 6px; padding: 0 10px; overflow: hidden; white-space: nowrap; }
.row .names .what { overflow: hidden; text-overflow: ellipsis; color: var(--fg2); }
.row.round .names { font-weight: 650; }
.row.child .names { padding-left: 26px; }
.row .dur { margin-left: auto; color: var(--fg3); font-family: var(--mono); font-size: 11px; padding-left: 6px; }
.row .lane { position: relative; flex: 1; height: 100%; margin-right: 12px; }
.bar { position: absolute; top: 7px; height: 12px; border-radius: 3px; min-width: 3px; }
.bar.round { background: var(--bg3); top: 10px; height: 6px; }
.bar.model { background: var(--model); }
.bar.model .streaming { position: absolute; top: 0; bottom: 0; right: 0; background: repeating-linear-gradient(45deg, var(--stream) 0 4px, var(--model) 4px 8px); border-radius: 0 3px 3px 0; }
.bar.tool { background: var(--tool); }
.bar.tool.bad, .bar.validation.bad { background: var(--tool-bad); }
.bar.validation { background: var(--valid); }
.bar.retry { background: var(--retry); width: 3px; }
.kind { font-size: 10px; font-weight: 700; letter-spacing: .02em; padding: 0 4px; border-radius: 4px; flex: none; }
.kind.model { color: var(--model); } .kind.tool { color: var(--tool); } .kind.validation { color: var(--valid); } .kind.retry { color: var(--retry); } .kind.bad { color: var(--bad); }
.inspector { flex: 1 1 45%; min-height: 120px; display: flex; flex-direction: column; border-top: 1px solid var(--line); }
.inspector-body { overflow: auto; flex: 1; padding: 10px 12px; }
.inspector-body h3 { font-size: 13px; margin: 0 0 8px; } .inspector-body h4 { font-size: 11px; text-transform: uppercase; letter-spacing: .03em; color: var(--fg2); margin: 10px 0 4px; }
.errors { margin: 0; padding-left: 18px; color: var(--bad); }
.message { border: 1px solid var(--line); border-radius: 8px; margin-bottom: 8px; overflow: hidden; }
.message.added { border-color: var(--ok); } .message.removed { border-color: var(--bad); opacity: .8; }
.message-head { display: flex; gap: 8px; align-items: center; padding: 3px 8px; background: var(--bg2); font-size: 11px; font-weight: 650; text-transform: uppercase; letter-spacing: .03em; color: var(--fg2); }
.message-head .change { margin-left: auto; text-transform: none; font-weight: 600; }
.message-text { white-space: pre-wrap; word-break: break-word; padding: 6px 8px; }
.call { margin: 6px 8px; border-left: 3px solid var(--tool); padding: 2px 8px; }
.call.bad { border-left-color: var(--tool-bad); }
.call-name { font-weight: 650; font-family: var(--mono); font-size: 12px; }
pre { font-family: var(--mono); font-size: 11.5px; white-space: pre-wrap; word-break: break-word; margin: 4px 0; background: var(--bg2); padding: 6px 8px; border-radius: 6px; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; font-variant-numeric: tabular-nums; }
.kv dt { color: var(--fg3); } .kv dd { margin: 0; }
.muted { color: var(--fg3); }
.chain { padding: 12px; overflow: auto; }
.advisor { display: flex; gap: 10px; align-items: center; padding: 6px 10px; border: 1px solid var(--line); border-radius: 8px; margin: 4px 0; background: var(--bg); }
.advisor .order { margin-left: auto; font-family: var(--mono); color: var(--fg3); font-size: 11px; }
.loop { border: 2px dashed var(--accent); border-radius: 10px; padding: 4px 10px 6px; margin: 8px 0; }
.loop-label { color: var(--accent); font-size: 11px; font-weight: 650; }
.warning { color: var(--warn); background: color-mix(in srgb, var(--warn) 12%, transparent); border-radius: 6px; padding: 6px 10px; margin-bottom: 8px; }
.approvals { border-bottom: 1px solid var(--line); background: color-mix(in srgb, var(--warn) 10%, var(--bg)); padding: 6px 10px; }
.approval { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; padding: 3px 0; }
.approval code { font-family: var(--mono); font-size: 11.5px; }
.primary { background: var(--accent); color: #fff; border-radius: 6px; padding: 3px 10px; font-weight: 600; }
.secondary { border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px; }
.floating-toggle { position: fixed; z-index: 2147483000; right: 14px; bottom: 14px; display: flex; align-items: center; gap: 6px; padding: 7px 12px; border-radius: 20px; background: #1b1f27; color: #fff; font: 600 12.5px system-ui, sans-serif; box-shadow: 0 4px 16px rgba(0,0,0,.25); border: 0; cursor: pointer; }
.dock { position: fixed; z-index: 2147483000; background: var(--bg); box-shadow: 0 -2px 18px rgba(0,0,0,.18); display: flex; }
.dock.bottom { left: 0; right: 0; bottom: 0; }
.dock.right { top: 0; right: 0; bottom: 0; }
.resize { flex: none; background: var(--line); }
.dock.bottom .resize { height: 4px; width: 100%; cursor: ns-resize; position: absolute; top: 0; left: 0; }
.dock.right .resize { width: 4px; height: 100%; cursor: ew-resize; position: absolute; left: 0; top: 0; }
.crashed { padding: 16px; color: var(--bad); }
@media (max-width: 640px) { .runs { width: 42%; } .axis .names, .row .names { width: 45%; } }
`
