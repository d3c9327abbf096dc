import react from '@vitejs/plugin-react'
import { playwright } from '@vitest/browser-playwright'
import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'
import { chromiumLaunchOptions } from './e2e/browser/find.mjs'
import { providerReplay } from './e2e/browser/provider-replay.mjs'
import { externalPackages, packageEntries } from './scripts/entries.mjs'
import { tinyModelServer } from './scripts/tiny-gguf-server.mjs'
import { mcpServerCommands } from './src/mcp/testing/commands'

const root = import.meta.dirname
const entries = packageEntries()
const externals = externalPackages()

// One config, three jobs: the demo (`vite`, `vite build --mode demo`), the library
// (`vite build --mode lib`), and the tests (Vitest projects `unit` in Node, `browser` in Chromium).
export default defineConfig(({ mode }) => ({
  plugins: [react()],
  base: './',
  // Known up front so a test that loads WebLLM does not make Vite re-optimize and reload the page.
  optimizeDeps: {
    include: [
      '@mlc-ai/web-llm',
      '@wllama/wllama',
      'ajv',
      'ajv/dist/2020.js',
      '@modelcontextprotocol/sdk/client/index.js',
      '@modelcontextprotocol/sdk/client/streamableHttp.js',
      '@modelcontextprotocol/sdk/client/sse.js',
      '@modelcontextprotocol/sdk/types.js',
      '@modelcontextprotocol/sdk/validation/cfworker',
      '@cfworker/json-schema',
      'react',
      'react-dom/client',
      'react/jsx-dev-runtime',
    ],
  },
  resolve: {
    // Every entry of package.json `exports`, from source: `advisor-chain/trace` → src/trace/index.ts.
    alias: entries.map((entry) => ({
      find: new RegExp(`^${entry.specifier}$`),
      replacement: resolve(root, entry.source),
    })),
  },
  build:
    mode === 'lib'
      ? {
          outDir: 'dist',
          // The declarations are written after this build (tsc); nothing older may linger.
          emptyOutDir: true,
          // Maps double the package; ADVISOR_CHAIN_SOURCEMAP=1 npm run build adds them.
          sourcemap: process.env.ADVISOR_CHAIN_SOURCEMAP === '1',
          lib: {
            entry: Object.fromEntries(
              entries.map((entry) => [entry.output.replace(/^dist\/|\.js$/g, ''), resolve(root, entry.source)]),
            ),
            formats: ['es'],
          },
          rolldownOptions: {
            // Dependencies stay imports, resolved by the app's bundler: one copy of each, WebLLM included.
            // The meta-schema the MCP entry checks tool schemas with is data: bundled, not a JSON import at run time.
            external: (id) => !id.startsWith('ajv/dist/refs/') && externals.some((pattern) => pattern.test(id)),
            // One file per source module, as the source tree: an app's bundler tree-shakes it as it
            // would the source, and each .js sits next to its .d.ts.
            output: { preserveModules: true, preserveModulesRoot: root, entryFileNames: '[name].js' },
          },
        }
      : { outDir: 'dist-demo', sourcemap: true },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          environment: 'node',
          globalSetup: ['src/mcp/testing/global-setup.ts'],
          include: ['src/**/*.test.ts', 'devtools/**/*.test.ts', 'bench/**/*.test.ts', 'eslint/**/*.test.ts'],
          // Any node_modules: bench/cold-start installs its own (zod ships its tests).
          exclude: ['**/*.browser.test.*', '**/*.webgpu.test.*', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        plugins: [providerReplay(), tinyModelServer()],
        test: {
          name: 'browser',
          globalSetup: ['src/mcp/testing/global-setup.ts'],
          // What the library loads on first use comes from the dev server, transformed on request: on
          // a cold start (a fresh clone, the dependency optimizer still bundling) a test's first tool
          // round can take over the one second `expect.poll` waits by default.
          expect: { poll: { timeout: 5000 } },
          include: ['src/**/*.browser.test.{ts,tsx}', 'devtools/**/*.browser.test.{ts,tsx}'],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: chromiumLaunchOptions() }),
            instances: [{ browser: 'chromium' }],
            commands: mcpServerCommands,
          },
        },
      },
      {
        extends: true,
        test: {
          // Chromium with a software WebGPU adapter (SwiftShader), for the WebLLM adapter.
          name: 'webgpu',
          include: ['src/**/*.webgpu.test.ts'],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: chromiumLaunchOptions(['--enable-unsafe-webgpu']) }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
}))
