// The size gate: the gzip bytes a page must load before its first model request leaves — the
// script an app's production build makes of a page that uses a few names, and everything it
// imports statically — measured from the built package (dist/, as the tarball ships it) with a
// Vite app build, minified, tree-shaken and gzipped. Peer dependencies are the app's own and not
// counted.
// What loads on demand is reported apart and may only be what a page may never use: no chunk of
// the first call's code may be lazy, so the first call never waits on a fetch.
// Usage: node scripts/size.mjs   (needs `npm run build` first; exits 1 when over a budget)
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'vite'
import { packageEntries, packageJson, root } from './entries.mjs'

/** Budgets in KB (1024 bytes) of gzip, for what loads before the first model request. */
const COMBINATIONS = [
  {
    label: 'before the first model request: ChatClient + defineTool + OpenAIChatModel + ObserverAdvisor',
    names: ['ChatClient', 'defineTool', 'OpenAIChatModel', 'ObserverAdvisor'],
    from: 'advisor-chain',
    // 30 KB when the first message was made fast (issue 26, 29.9 KB then); the checks every answer
    // now gets before a tool runs (unfinished calls, errors inside a 200, cut streams, attachments,
    // secrets in every channel) took it to 30.9 KB. Grow it only for what every first call needs.
    // 33.2 KB with streaming structured output (issue 33): `partialEntity` is a method of the stream
    // spec, so its incremental JSON parser and reader (about 2.2 KB) load with ChatClient; after
    // trimming them (closures, shared entity setup, the validation advisor reusing parseEntity) they
    // did not fit, and no other code of the first call could go without losing a feature.
    // 33.3 KB: the parser trimmed further (numbers and escapes read by JSON.parse, one copy-on-write
    // put) measured 33.17 KB with the wide-array throttle of partialEntity's reader; rounded up to
    // 33.2 KB, plus 0.1 KB for what main grew meanwhile (about 0.07 KB from other work).
    // 33.9 KB: the parser became a class so that V8 optimizes it once for every stream (a warm
    // parse took 2.7x the instructions when each parser's closures were optimized again), and the
    // answer's text is held in blocks; the minifier keeps the class's field names: 33.81 KB.
    // 34.7 KB (issue 43, 34.68 KB): the observer prices each response (`pricing`: cost, estimated
    // usage, the escalation fallback's price, the pricing check) and records escalations; the parts
    // stream names the answering model and restarts a round that escalated; the terminal can call a
    // fallback model. The EscalationAdvisor itself loads only with a page that uses it.
    // 35.1 KB (35.08 KB after issues 39–44 merged): a response schema strict mode accepts is sent as
    // strict (0.28 KB), tools carry needsApproval and a tool round refuses to run one nothing asked
    // about, sessions name the terminal's model; the one async rule and the chain owning the run took
    // some back. Issue 40 aims below 33.8 KB again.
    // 35.0 KB (34.94 KB): the observer records an advisor's report (validation, evaluation,
    // escalation, note) as it came, its texts masked, without a method per kind (0.22 KB less); a
    // tool's definition is masked once, not each run (0.06 KB more, and a faster first round).
    // 34.95 KB (34.89 KB): the observer begins a round in one place for calls and streams and counts
    // an estimated answer's characters with the prompt's helper (0.05 KB less); a tool round's
    // result is a small class, its history getter on the prototype (0.03 KB more, a faster round).
    // 33.95 KB (33.93 KB, issue 40, 34.63 before): the OpenAI request reads user parts only
    // (userPartsOf), the chain reads the auto-register param from a constant (AdvisorParams stays
    // out), the observer watches a call as it watches a stream and hands reports and retries to its
    // run to mask, one answer builder for OpenAI calls and streams, one FNV text hash, #private
    // fields where only their class reads them.
    // 33.75 KB (33.71 KB, issue 40): the observer prices a response where it traces it, the validation
    // advisor's verdict is its list of errors, one ended() for the tool loop, one readerStopped(),
    // smaller provider-error, usage and retry-after readers. Trace events stay written field by field
    // onto their header (merging a body with Object.assign saved 0.09 KB and cost 10% of a warm round).
    // The largest parts, minified: the JSON Schema validator for tool arguments (7.3 KB), the run
    // recorder (6.1 KB), the partial JSON parser (4.6 KB), the tool loop and its round (4.1 + 3.8 +
    // 3.3 KB), the stream stage (3.9 KB), the observer (3.8 KB), the client (3.7 KB).
    budgetKB: 33.75,
    firstCall: true,
  },
  { label: 'ChatClient + defineTool', names: ['ChatClient', 'defineTool'], from: 'advisor-chain', firstCall: true },
  {
    // What an app imports to mount the panel: the store and the closed toggle (about 1 KB of it).
    // The panel itself (about 24 KB) loads when it is first opened.
    // 9.2 KB (8.88 before): the dock's geometry moved here from the panel's chunk, so the page
    // leaves the panel's room while that chunk loads and does not move when it lands.
    // 9.3 KB (9.27, issue 43): the trace reader keeps each round's escalation.
    // 9.45 KB (9.42): a retrieval run is titled with its query, and a production build that leaves
    // the devtools out says so once in the console.
    // 9.55 KB (9.51, issue 41): the devtools' own state store replaces zustand, a peer not counted
    // here; a page now loads about 0.4 KB less (zustand's vanilla store and hook, 0.5 KB gzip).
    // 9.55 KB (9779 bytes, issue 41): the store's `keep` option (runs kept over reloads) costs 31
    // bytes; keepRuns itself and its IndexedDB code load only with a page that imports it.
    label: 'devtools: AdvisorDevtools + AdvisorDevtoolsPanel + createDevtoolsStore',
    names: ['AdvisorDevtools', 'AdvisorDevtoolsPanel', 'createDevtoolsStore'],
    from: 'advisor-chain/devtools',
    budgetKB: 9.55,
  },
]

/** The code a page may never use, and so the only code that may load on demand where a row has `firstCall`. */
const LAZY = [
  /node_modules\/(ajv|fast-deep-equal|fast-uri|json-schema-traverse|require-from-string|@cfworker)\//,
  /dist\/src\/schema\/(ajv-validator|interpreting-validator)\.js$/,
  /dist\/devtools\/panel\//,
  /^\0|^\\0|commonjsHelpers|rolldown:runtime/,
]

/** The combinations above, then everything of each entry in package.json exports. */
export function sizeRows() {
  const entries = packageEntries().map(({ specifier }) => ({
    label: `everything in ${specifier}`,
    from: specifier,
    firstCall: specifier === packageJson.name,
  }))
  return [...COMBINATIONS, ...entries]
}

const workDir = join(root, 'node_modules', '.size')
const peers = Object.keys(packageJson.peerDependencies ?? {}).map((name) => new RegExp(`^${name}($|/)`))
// Each entry as the package's exports map it, so the built files are measured, never the source.
const alias = packageEntries().map((entry) => ({
  find: new RegExp(`^${entry.specifier}$`),
  replacement: join(root, entry.output),
}))

/** A page that uses `names` of `from` (every export when none are named), as an app's own code would. */
function pageScript(names, from) {
  if (!names) return `import * as used from '${from}'\nglobalThis.used = used\n`
  return `import { ${names.join(', ')} } from '${from}'\nglobalThis.used = [${names.join(', ')}]\n`
}

async function measure({ label, names, from, firstCall }, index) {
  const page = join(workDir, String(index))
  mkdirSync(page, { recursive: true })
  writeFileSync(join(page, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>\n')
  writeFileSync(join(page, 'main.js'), pageScript(names, from))
  const result = await build({
    root: page,
    configFile: false,
    logLevel: 'silent',
    resolve: { alias },
    define: { 'process.env.NODE_ENV': '"production"' },
    build: { write: false, rolldownOptions: { external: peers } },
  })
  const chunks = (Array.isArray(result) ? result : [result])
    .flatMap((output) => output.output)
    .filter((chunk) => chunk.type === 'chunk')
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]))
  // The entry and what it imports statically; everything else loads on demand.
  const first = chunks.filter((chunk) => chunk.isEntry)
  for (const chunk of first)
    for (const imported of chunk.imports.map((name) => byName.get(name)).filter(Boolean))
      if (!first.includes(imported)) first.push(imported)
  const onDemand = chunks.filter((chunk) => !first.includes(chunk))
  const gzipKB = (list) => list.reduce((sum, chunk) => sum + gzipSync(chunk.code, { level: 9 }).length, 0) / 1024
  const round = (kb) => Math.round(kb * 100) / 100
  const lazyModules = (firstCall ? onDemand : [])
    .flatMap((chunk) => Object.keys(chunk.modules))
    .filter((id) => !LAZY.some((pattern) => pattern.test(id)))
    .map((id) => id.replace(`${root}/`, ''))
  return { label, firstKB: round(gzipKB(first)), onDemandKB: round(gzipKB(onDemand)), lazyModules }
}

export async function measureSizes() {
  const sizes = []
  for (const [index, row] of sizeRows().entries())
    sizes.push({ ...(await measure(row, index)), budgetKB: row.budgetKB })
  return sizes
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = await measureSizes()
  const problems = []
  for (const { label, firstKB, onDemandKB, budgetKB, lazyModules } of sizes) {
    const verdict = budgetKB === undefined ? '' : firstKB <= budgetKB ? `≤ ${budgetKB} KB ok` : `OVER ${budgetKB} KB`
    if (budgetKB !== undefined && firstKB > budgetKB)
      problems.push(`${label}: ${firstKB} KB before the first request, over its budget of ${budgetKB} KB`)
    if (lazyModules.length > 0)
      problems.push(`${label}: loads on demand what a page may need for its first call: ${lazyModules.join(', ')}`)
    console.log(`${label}: ${firstKB.toFixed(2)} KB gzip (+${onDemandKB.toFixed(1)} KB on demand) ${verdict}`)
  }
  if (problems.length > 0) {
    console.error(
      `${problems.join('\n')}\nMake the code smaller; never move what the first call needs into a lazy chunk: it would wait on a fetch (budgets in scripts/size.mjs)`,
    )
    process.exit(1)
  }
}
