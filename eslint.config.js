import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { layers } from './eslint/layers.js'

/** The only files that load code on demand: code a page may never use. */
const LAZY_LOADERS = [
  'src/webllm/runtime.ts', // WebLLM itself
  'src/wllama/runtime.ts', // wllama (llama.cpp in WebAssembly)
  'src/mcp/connection.ts', // the MCP SDK's SSE transport, for servers without Streamable HTTP
  'src/mcp/tool-schema.ts', // the JSON Schema meta-schema that MCP tool schemas are checked against
  'src/schema/json-validator.ts', // ajv, or the interpreting validator, for schemas the fast validator leaves
  'devtools/index.tsx', // the devtools panel
]

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'dist',
      'dist-demo',
      'test-results',
      'playwright-report',
      'src/models/__fixtures__',
      'e2e/consumer/dist',
      // The consumer app imports the installed tarball; its own type checks (bundler and nodenext) cover it.
      'e2e/consumer/src',
      'e2e/consumer/.generated',
      // The Next.js consumer app imports what its build installs (Next and the tarball); `next build` type-checks it.
      'e2e/consumer-next',
      // Likewise the cold-start apps: they import what bench/cold-start installs; its runner type-checks them.
      'bench/cold-start/apps',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'devtools/**/*.{ts,tsx}'],
    plugins: { layers },
    rules: { 'layers/imports': 'error' },
  },
  {
    // What a call needs loads with the entry: a dynamic import is a fetch a page waits on.
    files: ['src/**/*.{ts,tsx}', 'devtools/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}', '**/testing/**', ...LAZY_LOADERS],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression',
          message:
            'Import statically: only what a page may never use loads lazily (WebLLM, wllama, the MCP SDK, the devtools panel, ajv), from the files listed in eslint.config.js, one level deep.',
        },
      ],
    },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
  },
)
