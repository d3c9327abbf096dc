// Which packages each entry's types import, against the README's table of entries ("needs"): an
// app that installs what the table says for the entries it imports never meets TS2307 ("Cannot find
// module") in advisor-chain's types, and an entry's types never import a package it does not need
// (zustand once reached every devtools user this way). Every package named must be a peer
// dependency; an optional one must have its line in the README's install block.
// Usage: node scripts/check-peer-types.mjs   (needs `npm run build` first; exits 1 on a mismatch)
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { packageEntries, packageJson, root } from './entries.mjs'

// `from 'x'`, `import('x')`, `import 'x'` and `declare module 'x'`: every place a .d.ts names a module.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bmodule\s+)(['"])([^'"]+)\1/g

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); `node:` modules as `@types/node`. */
function packageOf(specifier) {
  if (specifier.startsWith('node:')) return '@types/node'
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** The packages the declarations reachable from `types` import, each with the first file that does. */
export function packagesOfTypes(types, entries = packageEntries()) {
  const found = new Map()
  const seen = new Set()
  const queue = [join(root, types)]
  while (queue.length > 0) {
    const file = queue.pop()
    if (seen.has(file)) continue
    seen.add(file)
    for (const [, , specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (specifier.startsWith('.')) {
        const target = join(dirname(file), specifier.replace(/\.js$/, '.d.ts'))
        if (existsSync(target)) queue.push(target)
        continue
      }
      const own = entries.find((entry) => entry.specifier === specifier)
      if (own) {
        queue.push(join(root, own.types))
        continue
      }
      const name = packageOf(specifier)
      if (!found.has(name)) found.set(name, relative(root, file))
    }
  }
  return found
}

/** The README's table of entries: entry → the packages in its "needs" column. */
export function readmeNeeds(readme) {
  const needs = new Map()
  for (const line of readme.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim())
    const entry = /^`(advisor-chain[^`]*)`$/.exec(cells[1] ?? '')?.[1]
    if (!entry || cells.length < 5) continue
    needs.set(
      entry,
      [...cells[3].matchAll(/`([^`]+)`/g)].map((match) => match[1]),
    )
  }
  return needs
}

export function peerTypeProblems(readme = readFileSync(join(root, 'README.md'), 'utf8')) {
  const problems = []
  const needs = readmeNeeds(readme)
  const peers = packageJson.peerDependencies ?? {}
  const optional = packageJson.peerDependenciesMeta ?? {}
  const dependencies = packageJson.dependencies ?? {}
  for (const entry of packageEntries()) {
    const listed = needs.get(entry.specifier)
    if (!listed) {
      problems.push(`${entry.specifier} has no row in the README's table of entries`)
      continue
    }
    for (const [name, file] of packagesOfTypes(entry.types)) {
      if (name in dependencies) continue
      if (name === '@types/node' && entry.specifier.endsWith('/server')) continue
      if (!(name in peers))
        problems.push(
          `${entry.specifier}'s types import '${name}' (${file}), which is neither a dependency nor a peer dependency: an app without it gets TS2307`,
        )
      else if (!listed.includes(name))
        problems.push(
          `${entry.specifier}'s types import the peer '${name}' (${file}), but the README's table does not list it under "needs"`,
        )
    }
  }
  // Every optional peer has its install line, so the table's "needs" says what to run.
  const installs = readme.split('\n').filter((line) => line.startsWith('npm install '))
  for (const name of Object.keys(peers))
    if (optional[name]?.optional && !installs.some((line) => line.split(/\s+/).includes(name)))
      problems.push(`the optional peer '${name}' has no install line in the README ("npm install ${name}")`)
  return problems
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = peerTypeProblems()
  if (problems.length > 0) {
    console.error(`✖ entries' types and their peers:\n  ${problems.join('\n  ')}`)
    process.exit(1)
  }
  console.log("entries' types import only the peers the README's table lists for them")
}
