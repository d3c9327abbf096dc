// The package as people install it: packs it (prepack builds it), checks what the tarball holds,
// that its types resolve everywhere (attw), that its API matches the report, that each entry's
// types import only the peers the README lists for it, that it stays within its size budgets, and
// builds the consumer app from it. The consumer's Playwright spec runs after (npm run test:package).
// Usage: node scripts/check-package.mjs
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './entries.mjs'

// 1.0 MB until the retrieval, wllama and prompt-api entries (issues 34 and 35) took it to 1.01 MB;
// 1.1 MB until sessions, escalation, the chat object and the proxy's files (issues 39–44) took it to 1.24 MB.
// 1.3 MB until the second round of issues 40–44 (kept devtools runs, token counting, the compaction
// event, the busy policy, the peers check; the README alone is 223 KB of it) took it to 1.304 MB.
const MAX_UNPACKED_BYTES = 1_350_000
// Outside dist/, only what npm always ships.
const ALWAYS_SHIPPED = ['package.json', 'README.md', 'LICENSE']
// Code of WebLLM itself (its TVM runtime, its engine class): the app brings its own copy.
const WEBLLM_CODE = /tvmjs|class MLCEngine\b/

const packDir = join(root, 'node_modules', '.package')
rmSync(packDir, { recursive: true, force: true })
mkdirSync(packDir, { recursive: true })

function run(what, command, args, options = {}) {
  console.log(`\n▶ ${what}`)
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio: 'inherit', ...options })
  if (result.status !== 0) {
    console.error(`✖ ${what} failed`)
    process.exit(1)
  }
  return result
}

const packed = run('npm pack (prepack builds the library)', 'npm', ['pack', '--json', '--pack-destination', packDir], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
// The prepack build prints too (with colour codes, which hold '['): the JSON starts on a line of its own.
const [tarball] = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[$/m)))
const tarballPath = join(packDir, tarball.filename)
console.log(
  `${tarball.filename}: ${(tarball.size / 1024).toFixed(1)} KB packed, ${(tarball.unpackedSize / 1024).toFixed(1)} KB unpacked, ${tarball.entryCount} files`,
)

const problems = []
if (tarball.unpackedSize > MAX_UNPACKED_BYTES)
  problems.push(`unpacked size ${tarball.unpackedSize} bytes is over ${MAX_UNPACKED_BYTES}`)
for (const { path } of tarball.files) {
  if (!path.startsWith('dist/') && !ALWAYS_SHIPPED.includes(path)) problems.push(`${path} is outside dist/`)
  if (/\.(test|spec)\.|\/testing\/|__fixtures__/.test(path)) problems.push(`${path} is test code`)
  if (path.endsWith('.js') && WEBLLM_CODE.test(readFileSync(join(root, path), 'utf8')))
    problems.push(`${path} contains WebLLM's own code; @mlc-ai/web-llm must stay an import`)
}
if (problems.length > 0) {
  console.error(`✖ the tarball:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}

// ESM only by design: a require() from CommonJS gets the ESM build (Node 20.19+ loads it).
run('types resolve under node10, node16 and bundler (attw)', join(root, 'node_modules', '.bin', 'attw'), [
  tarballPath,
  '--ignore-rules',
  'cjs-resolves-to-esm',
])
run('API report', process.execPath, [join(root, 'scripts', 'api-report.mjs')])
run("entries' types import only the peers the README lists for them", process.execPath, [
  join(root, 'scripts', 'check-peer-types.mjs'),
])
run('every entry in Node and a server render', process.execPath, [join(root, 'scripts', 'check-ssr.mjs')])
run('size budgets', process.execPath, [join(root, 'scripts', 'size.mjs')])
run('consumer app from the tarball', process.execPath, [join(root, 'e2e', 'consumer', 'build.mjs'), tarballPath])
run('Next.js consumer app from the tarball', process.execPath, [
  join(root, 'e2e', 'consumer-next', 'build.mjs'),
  tarballPath,
])
