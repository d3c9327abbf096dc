// The architecture's layers as a lint rule: an import that points up a layer, or a package used
// outside the one layer that may use it, fails `npm run lint`. One table; ARCHITECTURE in the
// README shows the same picture.
import { dirname, relative, resolve, sep } from 'node:path'

const root = resolve(import.meta.dirname, '..')

/** Each layer, with the layers it may import (besides itself). */
export const LAYERS = {
  'src/core': [],
  'src/schema': ['src/core'],
  'src/tools': ['src/core', 'src/schema'],
  'src/storage': ['src/core'],
  'src/memory': ['src/core', 'src/storage'],
  'src/session': ['src/core', 'src/schema', 'src/tools', 'src/storage', 'src/memory'],
  'src/trace': ['src/core'],
  'src/advisors': ['src/core', 'src/schema', 'src/tools', 'src/storage', 'src/memory', 'src/session', 'src/trace'],
  'src/client': ['src/core', 'src/schema', 'src/tools', 'src/storage', 'src/memory', 'src/session', 'src/advisors'],
  'src/models': ['src/core'],
  'src/webllm': ['src/core', 'src/schema', 'src/models', 'src/retrieval'],
  'src/mcp': ['src/core', 'src/schema', 'src/tools', 'src/trace'],
  'src/replay': ['src/core', 'src/trace', 'src/models', 'src/client'],
  'src/react': [
    'src/core',
    'src/schema',
    'src/storage',
    'src/memory',
    'src/session',
    'src/trace',
    'src/advisors',
    'src/client',
  ],
  'src/playwright': ['src/trace', 'src/replay'],
  'src/server': [],
  'src/retrieval': ['src/core', 'src/schema', 'src/tools', 'src/storage', 'src/models'],
  'src/wllama': ['src/core', 'src/models'],
  'src/prompt-api': ['src/core', 'src/models'],
  devtools: ['src/trace', 'src/storage'],
}

/** Packages only some layers may import. */
export const PACKAGES = {
  '@mlc-ai/web-llm': ['src/webllm'],
  '@modelcontextprotocol/sdk': ['src/mcp'],
  '@wllama/wllama': ['src/wllama'],
  react: ['src/react', 'devtools', 'demo'],
  'react-dom': ['src/react', 'devtools', 'demo'],
}

/** The package's own entries, as the folders they stand for. */
const ENTRIES = {
  'advisor-chain': 'src',
  'advisor-chain/trace': 'src/trace',
  'advisor-chain/devtools': 'devtools',
  'advisor-chain/webllm': 'src/webllm',
  'advisor-chain/react': 'src/react',
  'advisor-chain/playwright': 'src/playwright',
  'advisor-chain/mcp': 'src/mcp',
  'advisor-chain/server': 'src/server',
  'advisor-chain/retrieval': 'src/retrieval',
  'advisor-chain/wllama': 'src/wllama',
  'advisor-chain/prompt-api': 'src/prompt-api',
}

const layerOf = (path) => {
  const inRoot = relative(root, path).split(sep).join('/')
  return Object.keys(LAYERS).find((layer) => inRoot === layer || inRoot.startsWith(`${layer}/`))
}
const packageOf = (specifier) =>
  Object.keys(PACKAGES).find((name) => specifier === name || specifier.startsWith(`${name}/`))
const isTest = (file) => /\.test\.tsx?$/.test(file) || /[/\\]testing[/\\]/.test(file)

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports point down the layers of ARCHITECTURE.md' },
    schema: [],
  },
  create(context) {
    const file = context.filename
    const inRoot = relative(root, file).split(sep).join('/')
    const from = layerOf(file)
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return
      const pkg = packageOf(specifier)
      if (pkg) {
        const allowed = PACKAGES[pkg]
        if (!isTest(file) && !allowed.some((layer) => inRoot.startsWith(`${layer}/`)))
          context.report({ node, message: `Only ${allowed.join(', ')} may import '${pkg}'.` })
        return
      }
      if (!from || isTest(file)) return
      let target
      if (specifier.startsWith('.')) target = resolve(dirname(file), specifier)
      else if (Object.hasOwn(ENTRIES, specifier)) target = resolve(root, ENTRIES[specifier])
      else return
      const to = layerOf(target)
      if (to === from) return
      if (specifier === 'advisor-chain' || target === resolve(root, 'src') || target === resolve(root, 'src/index')) {
        context.report({ node, message: `${from} may not import the root barrel; import the layer it needs.` })
        return
      }
      if (to && !LAYERS[from].includes(to)) {
        const may = LAYERS[from].length ? LAYERS[from].join(', ') : 'nothing outside itself'
        context.report({ node, message: `${from} may not import ${to} (it may import ${may}).` })
      }
    }
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    }
  },
}

export const layers = { rules: { imports: rule } }
