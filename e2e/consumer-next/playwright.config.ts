import { defineConfig, devices } from '@playwright/test'
import { chromiumLaunchOptions } from '../browser/find.mjs'

// The Next.js app as built by build.mjs from the packed tarball, served by `next start`, with its
// model route pointed at a mock provider on loopback. E2E_PORT as in the main suite; this app
// takes the two ports after the Vite consumer's.
const port = Number(process.env.E2E_PORT ?? 4179) + 3
const providerPort = port + 1

export default defineConfig({
  testDir: '.',
  testMatch: 'app.spec.ts',
  outputDir: '../../test-results/consumer-next',
  workers: 1,
  retries: 0,
  reporter: [['list']],
  timeout: 60_000,
  use: {
    ...devices['Desktop Chrome'],
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: chromiumLaunchOptions(),
    trace: 'off',
    screenshot: 'only-on-failure',
  },
  webServer: [
    {
      command: `node mock-provider.mjs ${providerPort}`,
      cwd: import.meta.dirname,
      url: `http://127.0.0.1:${providerPort}`,
      reuseExistingServer: false,
      ignoreHTTPSErrors: true,
      timeout: 30_000,
    },
    {
      command: `npx next start --port ${port} --hostname 127.0.0.1`,
      cwd: import.meta.dirname,
      url: `http://127.0.0.1:${port}`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: { OPENAI_API_KEY: 'sk-consumer-next-test-key', OPENAI_BASE_URL: `http://127.0.0.1:${providerPort}/v1` },
    },
  ],
})
