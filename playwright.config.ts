import { defineConfig, devices } from '@playwright/test'
import { chromiumLaunchOptions } from './e2e/browser/find.mjs'

// E2E_PORT lets two checkouts run their suites side by side.
const port = Number(process.env.E2E_PORT ?? 4179)
const pagesPort = port + 1

export default defineConfig({
  testDir: 'e2e',
  // The consumer app has its own config: it needs the packed tarball (npm run test:package).
  testIgnore: ['consumer/**', 'consumer-next/**'],
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  timeout: 30_000,
  use: {
    ...devices['Desktop Chrome'],
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: chromiumLaunchOptions(),
    trace: 'off',
    screenshot: 'only-on-failure',
  },
  webServer: [
    {
      command: `npx vite build --mode demo --logLevel warn && npx vite preview --mode demo --port ${port} --strictPort --host 127.0.0.1`,
      // A test build: the demo exposes its test harness (window.__advisorChain) only then.
      env: { VITE_TEST_HARNESS: 'true' },
      url: `http://127.0.0.1:${port}`,
      reuseExistingServer: false,
      timeout: 120_000,
    },
    {
      // The dev server, for the small test pages in e2e/pages/ that import the library's source.
      command: `npx vite --port ${pagesPort} --strictPort --host 127.0.0.1 --logLevel warn`,
      url: `http://127.0.0.1:${pagesPort}/e2e/pages/memory.html`,
      reuseExistingServer: false,
      timeout: 120_000,
    },
  ],
})
