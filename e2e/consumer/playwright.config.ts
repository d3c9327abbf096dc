import { defineConfig, devices } from '@playwright/test'
import { chromiumLaunchOptions } from '../browser/find.mjs'

// The consumer app as built by build.mjs from the packed tarball, served as static files.
// E2E_PORT as in the main suite; this app takes the port after its two.
const port = Number(process.env.E2E_PORT ?? 4179) + 2

export default defineConfig({
  testDir: '.',
  testMatch: 'app.spec.ts',
  outputDir: '../../test-results/consumer',
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
  webServer: {
    command: `npx vite preview --port ${port} --strictPort --host 127.0.0.1`,
    cwd: import.meta.dirname,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
})
