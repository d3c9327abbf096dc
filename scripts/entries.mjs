// The package's entries, read from package.json `exports`, so that one line there is all a new
// entry needs: the library build, the aliases for the demo and tests, the type fix-up, the API
// report, the size gate and the consumer app all take their list from here.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const root = join(import.meta.dirname, '..')
export const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/**
 * @typedef {object} Entry
 * @property {string} specifier what an app imports, e.g. `advisor-chain/trace`
 * @property {string} name a file-safe name, e.g. `trace` (`index` for the root)
 * @property {string} source the source file, relative to the root, e.g. `src/trace/index.ts`
 * @property {string} output the built file, relative to the root, e.g. `dist/src/trace/index.js`
 * @property {string} types its declarations, e.g. `dist/src/trace/index.d.ts`
 */

/** @returns {Entry[]} */
export function packageEntries() {
  return Object.entries(packageJson.exports).map(([subpath, target]) => {
    const output = target.default.replace(/^\.\//, '')
    const types = target.types.replace(/^\.\//, '')
    // dist/ mirrors the source tree (the build preserves modules), so the source sits at the same path.
    const stem = output.replace(/^dist\//, '').replace(/\.js$/, '')
    const source = ['.ts', '.tsx'].map((extension) => stem + extension).find((file) => existsSync(join(root, file)))
    if (!source)
      throw new Error(
        `package.json exports '${subpath}' → ${target.default}, but neither ${stem}.ts nor ${stem}.tsx exists`,
      )
    if (types !== `dist/${stem}.d.ts`)
      throw new Error(
        `package.json exports '${subpath}': types must sit next to the code, at ./dist/${stem}.d.ts (found ${target.types})`,
      )
    const specifier = subpath === '.' ? packageJson.name : `${packageJson.name}/${subpath.slice(2)}`
    const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-')
    return { specifier, name, source, output, types }
  })
}

/** Packages the library imports but never bundles: its dependencies and peer dependencies. */
export function externalPackages() {
  const names = [...Object.keys(packageJson.dependencies ?? {}), ...Object.keys(packageJson.peerDependencies ?? {})]
  return names.map((name) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}($|/)`))
}
