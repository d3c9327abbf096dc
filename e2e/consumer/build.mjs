// The consumer app, built from the packed tarball as a user's app would be: install the tarball,
// type-check against it with moduleResolution bundler and nodenext, then build with Vite.
// Usage: node e2e/consumer/build.mjs <advisor-chain-x.y.z.tgz>
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { packageEntries, root } from '../../scripts/entries.mjs'

const app = import.meta.dirname
const tarball = process.argv[2] && resolve(process.argv[2])
if (!tarball) throw new Error('usage: node e2e/consumer/build.mjs <advisor-chain tarball from npm pack>')
const bin = (name) => join(root, 'node_modules', '.bin', name)

function run(what, command, args) {
  console.log(`consumer: ${what}`)
  const result = spawnSync(command, args, {
    cwd: app,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  })
  if (result.status !== 0) throw new Error(`consumer: ${what} failed (${command} ${args.join(' ')})`)
}

// Only the tarball is installed here (with its own dependencies, from the npm registry or its
// cache); react, vite and typescript come from the repository's node_modules, one folder up.
rmSync(join(app, 'node_modules'), { recursive: true, force: true })
run('install the tarball', 'npm', [
  'install',
  '--no-save',
  '--no-package-lock',
  '--no-audit',
  '--no-fund',
  '--prefer-offline',
  '--install-links',
  tarball,
])

// Every value each entry exports must have a real type: a declaration that fails to resolve
// under some moduleResolution turns its names into `any` without an error (skipLibCheck).
const generated = join(app, '.generated')
mkdirSync(generated, { recursive: true })
const checks = packageEntries().map(
  (entry, index) =>
    `import type * as entry${index} from '${entry.specifier}'\n` +
    `export const entry${index}Typed: NoAny<typeof entry${index}> = true // ${entry.specifier}`,
)
writeFileSync(
  join(generated, 'entries.ts'),
  `// Written by build.mjs from package.json exports.\n` +
    `type IsAny<T> = 0 extends 1 & T ? true : false\n` +
    `type NoAny<M> = true extends { [K in keyof M]: IsAny<M[K]> }[keyof M] ? false : true\n\n` +
    `${checks.join('\n')}\n`,
)
run('types, moduleResolution bundler', bin('tsc'), ['-p', 'tsconfig.json'])
run('types, moduleResolution nodenext', bin('tsc'), ['-p', 'tsconfig.nodenext.json'])
run('vite build', bin('vite'), ['build', '--logLevel', 'warn'])
