// tsc writes the declarations' relative imports as the source spells them (`./core`, `../client`),
// which only a bundler resolves; under moduleResolution node16/nodenext they silently become `any`.
// This spells each one as Node resolves it (`./core/index.js`, `../client/index.js`), checking
// that the target exists. Run after `tsc -p tsconfig.build.json`.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { root } from './entries.mjs'

const dist = join(root, 'dist')
// `from './x'`, `import('./x')` and `declare module './x'`: every place a .d.ts names a module.
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bmodule\s+)(['"])(\.{1,2}(?:\/[^'"]*)?)\2/g

let files = 0
for (const file of declarationFiles(dist)) {
  const text = readFileSync(file, 'utf8')
  const fixed = text.replace(SPECIFIER, (_match, before, quote, specifier) => {
    return `${before}${quote}${nodeSpecifier(file, specifier)}${quote}`
  })
  if (fixed !== text) {
    writeFileSync(file, fixed)
    files++
  }
}
console.log(`fix-dts-imports: ${files} declaration files now import with Node's file names`)

function nodeSpecifier(file, specifier) {
  if (/\.(js|mjs|cjs|json)$/.test(specifier)) return specifier
  const target = join(dirname(file), specifier)
  if (existsSync(`${target}.d.ts`)) return `${specifier}.js`
  if (existsSync(join(target, 'index.d.ts'))) return `${specifier.replace(/\/$/, '')}/index.js`
  throw new Error(`${relative(root, file)} imports '${specifier}', which has no declaration file in dist/`)
}

function* declarationFiles(folder) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) yield* declarationFiles(path)
    else if (name.endsWith('.d.ts')) yield path
  }
}
