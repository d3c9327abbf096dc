// The size gate: what an app pays for in its first chunk when it imports a few names, measured
// from the built package (dist/, as the tarball ships it) with Vite, minified, tree-shaken and
// gzipped as an app's production build would be. Chunks loaded on demand (ajv, the devtools panel,
// WebLLM) are reported apart; peer dependencies are the app's own and not counted.
// Usage: node scripts/size.mjs   (needs `npm run build:lib` first; exits 1 when over a budget)
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'vite'
import { packageEntries, packageJson, root } from './entries.mjs'

/** Budgets in KB (1024 bytes) of gzip, for the first chunk. */
const COMBINATIONS = [
  { label: 'ChatClient + defineTool', code: `export { ChatClient, defineTool } from 'advisor-chain'`, budgetKB: 12 },
  {
    label: 'ChatClient + defineTool + OpenAIChatModel + ObserverAdvisor',
    code: `export { ChatClient, defineTool, OpenAIChatModel, ObserverAdvisor } from 'advisor-chain'`,
    budgetKB: 18,
  },
  {
    // What an app imports to mount the panel; the panel itself loads when it first renders.
    label: 'devtools: AdvisorDevtools + AdvisorDevtoolsPanel + createDevtoolsStore',
    code: `export { AdvisorDevtools, AdvisorDevtoolsPanel, createDevtoolsStore } from 'advisor-chain/devtools'`,
    budgetKB: 8,
  },
]
const ENTRY_BUDGETS_KB = {}

/** The combinations above, then everything of each entry in package.json exports. */
export function sizeRows() {
  const entries = packageEntries().map(({ specifier }) => ({
    label: `everything in ${specifier}`,
    code: `export * from '${specifier}'`,
    budgetKB: ENTRY_BUDGETS_KB[specifier],
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

async function measure({ label, code }, index) {
  mkdirSync(workDir, { recursive: true })
  const file = join(workDir, `${index}.js`)
  writeFileSync(file, `${code}\n`)
  const result = await build({
    root: workDir,
    configFile: false,
    logLevel: 'silent',
    resolve: { alias },
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      write: false,
      minify: true,
      lib: { entry: file, formats: ['es'], fileName: 'entry' },
      rolldownOptions: { external: peers },
    },
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
  const gzipKB = (list) => list.reduce((sum, chunk) => sum + gzipSync(chunk.code, { level: 9 }).length, 0) / 1024
  const round = (kb) => Math.round(kb * 100) / 100
  return {
    label,
    firstKB: round(gzipKB(first)),
    onDemandKB: round(gzipKB(chunks.filter((chunk) => !first.includes(chunk)))),
  }
}

export async function measureSizes() {
  const sizes = []
  for (const [index, row] of sizeRows().entries())
    sizes.push({ ...(await measure(row, index)), budgetKB: row.budgetKB })
  return sizes
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = await measureSizes()
  let over = 0
  for (const { label, firstKB, onDemandKB, budgetKB } of sizes) {
    const verdict = budgetKB === undefined ? '' : firstKB <= budgetKB ? `≤ ${budgetKB} KB ok` : `OVER ${budgetKB} KB`
    if (budgetKB !== undefined && firstKB > budgetKB) over++
    console.log(`${label}: ${firstKB.toFixed(2)} KB gzip (+${onDemandKB.toFixed(1)} KB on demand) ${verdict}`)
  }
  if (over > 0) {
    console.error(
      `${over} size budget(s) exceeded: make the code smaller or load it lazily (budgets in scripts/size.mjs)`,
    )
    process.exit(1)
  }
}
