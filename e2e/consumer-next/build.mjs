// The Next.js consumer app, built from the packed tarball as a user's app would be: install the
// tarball and Next (the version in package.json) from npm, then `next build` (which type-checks).
// Usage: node e2e/consumer-next/build.mjs <advisor-chain-x.y.z.tgz>
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'

const app = import.meta.dirname
const tarball = process.argv[2] && resolve(process.argv[2])
if (!tarball) throw new Error('usage: node e2e/consumer-next/build.mjs <advisor-chain tarball from npm pack>')
const next = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).devDependencies.next

function run(what, command, args) {
  console.log(`consumer-next: ${what}`)
  const result = spawnSync(command, args, {
    cwd: app,
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  })
  if (result.status !== 0) throw new Error(`consumer-next: ${what} failed (${command} ${args.join(' ')})`)
}

// Next and the tarball are installed here; React, TypeScript and Playwright come from the
// repository's node_modules, two folders up.
rmSync(join(app, 'node_modules'), { recursive: true, force: true })
rmSync(join(app, '.next'), { recursive: true, force: true })
run(`install the tarball and next@${next}`, 'npm', [
  'install',
  '--no-save',
  '--no-package-lock',
  '--no-audit',
  '--no-fund',
  '--prefer-offline',
  '--install-links',
  `next@${next}`,
  tarball,
])
run('next build', 'npx', ['next', 'build'])
