// Run before the browser tests: makes sure a Chromium exists, getting one if it can
// (Playwright's download where the network allows, else the system package), or says how.
import { spawnSync } from 'node:child_process'
import { BROWSER_ENV, SYSTEM_CHROMIUMS, findChromium } from './find.mjs'

const found = findChromium()
if (found) {
  console.log(
    `Browser tests use ${found.source === 'playwright' ? "Playwright's Chromium" : found.executablePath} (${found.source}).`,
  )
  process.exit(0)
}

console.log('No Chromium found; trying to get one.')
const tries = [
  ['npx', ['playwright', 'install', 'chromium'], "Playwright's Chromium download"],
  ...(process.getuid?.() === 0 && hasCommand('apt-get')
    ? [['sh', ['-c', 'apt-get update -qq && apt-get install -y -qq chromium'], "Debian's chromium package"]]
    : []),
]
for (const [command, args, what] of tries) {
  console.log(`- ${what}: ${command} ${args.join(' ')}`)
  const run = spawnSync(command, args, { stdio: 'inherit', timeout: 5 * 60_000 })
  if (run.status === 0 && findChromium()) {
    console.log(`Got a Chromium from ${what}.`)
    process.exit(0)
  }
}

console.error(`
No Chromium is available for the browser tests, and none could be installed from here.
Get one in any of these ways, then run the tests again:
  1. npx playwright install chromium            (downloads Playwright's Chromium; needs internet)
  2. sudo apt-get install -y chromium           (Debian/Ubuntu; gives ${SYSTEM_CHROMIUMS[0]})
  3. ${BROWSER_ENV}=/path/to/chrome npm test    (use a Chromium or Chrome you already have)
`)
process.exit(1)

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0
}
