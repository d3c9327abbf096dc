import react from '@vitejs/plugin-react'
import { playwright } from '@vitest/browser-playwright'
import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'
import { chromiumLaunchOptions } from './e2e/browser/find.mjs'
import { providerReplay } from './e2e/browser/provider-replay.mjs'
import { mcpServerCommands } from './src/mcp/testing/commands'

const root = import.meta.dirname

// One config, three jobs: the demo (`vite`, `vite build --mode demo`), the library
// (`vite build --mode lib`), and the tests (Vitest projects `unit` in Node, `browser` in Chromium).
export default defineConfig(({ mode }) => ({
  plugins: [react()],
  base: './',
  // Known up front so a test that loads WebLLM does not make Vite re-optimize and reload the page.
  optimizeDeps: {
    include: [
      '@mlc-ai/web-llm',
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
    alias: {
      'advisor-chain/devtools': resolve(root, 'devtools/index.tsx'),
      'advisor-chain/trace': resolve(root, 'src/trace/index.ts'),
      'advisor-chain/webllm': resolve(root, 'src/webllm/index.ts'),
      'advisor-chain/mcp': resolve(root, 'src/mcp/index.ts'),
      'advisor-chain/react': resolve(root, 'src/react/index.ts'),
      'advisor-chain/playwright': resolve(root, 'src/playwright/index.ts'),
      'advisor-chain': resolve(root, 'src/index.ts'),
    },
  },
  build:
    mode === 'lib'
      ? {
          outDir: 'dist',
          emptyOutDir: false,
          sourcemap: true,
          lib: {
            entry: {
              index: resolve(root, 'src/index.ts'),
              trace: resolve(root, 'src/trace/index.ts'),
              devtools: resolve(root, 'devtools/index.tsx'),
              webllm: resolve(root, 'src/webllm/index.ts'),
              mcp: resolve(root, 'src/mcp/index.ts'),
              react: resolve(root, 'src/react/index.ts'),
              playwright: resolve(root, 'src/playwright/index.ts'),
            },
            formats: ['es'],
          },
          rolldownOptions: {
            external: [
              /^@playwright\//,
              /^react($|\/)/,
              /^react-dom($|\/)/,
              /^zustand($|\/)/,
              /^@mlc-ai\/web-llm/,
              /^@modelcontextprotocol\/sdk($|\/)/,
              // The meta-schema the MCP entry checks tool schemas with is data: bundled, not imported at run time.
              /^ajv($|\/(?!dist\/refs\/))/,
            ],
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
          include: ['src/**/*.test.ts', 'devtools/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['**/*.browser.test.*', '**/*.webgpu.test.*', 'node_modules/**'],
        },
      },
      {
        extends: true,
        plugins: [providerReplay()],
        test: {
          name: 'browser',
          globalSetup: ['src/mcp/testing/global-setup.ts'],
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
