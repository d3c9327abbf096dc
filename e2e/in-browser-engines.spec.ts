import { waitForRun } from 'advisor-chain/playwright'
import { expect, test } from '@playwright/test'
import { demo, idle, openDemo, send } from './support'

// The model picker's in-browser engines in headless Chromium: no WebGPU, and a Prompt API whose
// model cannot run here, so llama.cpp on the CPU is the best engine; its tiny test model is made
// in the page and runs on the real wllama engine (its text is nonsense).

test.beforeEach(async ({ page }) => {
  await openDemo(page)
})

test('offers every in-browser engine, picks llama.cpp here and says why, and runs the tiny model', async ({
  page,
}, testInfo) => {
  // A round of the random model on two shared cores: up to a few thousand tokens of prompt and reply.
  test.setTimeout(120_000)
  const app = demo(page)
  await app.getByRole('radio', { name: 'In this browser' }).click()
  await expect(page.getByTestId('engine-reason')).toContainText('Best here: llama.cpp (WebAssembly)')
  await expect(page.getByTestId('engine-reason')).toContainText('No usable WebGPU here')
  await expect(app.getByRole('radio', { name: 'llama.cpp (WebAssembly)' })).toHaveAttribute('aria-checked', 'true')
  await expect(page.getByTestId('engine-facts')).toContainText('any modern browser, on the CPU')

  await app.getByRole('radio', { name: 'WebLLM' }).click()
  await expect(page.getByTestId('engine-facts')).toContainText('not here: no usable WebGPU')
  await app.getByRole('radio', { name: "Chrome's built-in model" }).click()
  await expect(page.getByTestId('engine-facts')).toContainText('Gemini Nano')
  await expect(app.getByText("Chrome's built-in model is not available in this browser.")).toBeVisible()

  await app.getByRole('radio', { name: 'llama.cpp (WebAssembly)' }).click()
  await expect(app.getByText('Tiny test model (nonsense text), made in this page')).toBeAttached()
  await app.getByRole('button', { name: 'Load with llama.cpp' }).click()
  await expect(page.getByTestId('model-pill')).toHaveText('llama.cpp · advisor-chain tiny test model (nonsense text)', {
    timeout: 30_000,
  })
  await page.screenshot({ path: testInfo.outputPath('in-browser-engines.png'), fullPage: true })

  // The nonsense model may call the demo's tools round after round, some of them asking for
  // approval (denied here). Its sampling is random: a round's response shows the engine ran, and so
  // does a first reply that breaks the tool-call JSON (the engine's own output, refused by the adapter).
  await send(page, 'Hello')
  type Figures = { timings: { predictedTokens: number; predictedMs: number }; speed: { decodeTokensPerSecond: number } }
  type Outcome = { metadata?: Figures; error?: { code?: string; message: string } }
  let outcome: Outcome = {}
  await expect(async () => {
    const deny = demo(page).getByRole('button', { name: 'Deny' }).first()
    if (await deny.isVisible()) await deny.click({ timeout: 2_000 }).catch(() => {})
    outcome = await page.evaluate(() => {
      const events = window.__advisorChain?.events ?? []
      const metadata = events
        .filter((event) => event.type === 'model-response')
        .map((event) => (event as { metadata?: Record<string, unknown> }).metadata)
        .find((figures) => figures?.['timings'] !== undefined) as Figures | undefined
      const end = events.find((event) => event.type === 'run-end' && event.status === 'error')
      const error = end?.type === 'run-end' ? end.error : undefined
      return { ...(metadata ? { metadata } : {}), ...(error ? { error } : {}) }
    })
    expect(outcome.metadata ?? outcome.error).toBeDefined()
  }).toPass({ timeout: 90_000 })
  if (outcome.metadata) {
    expect(outcome.metadata.timings.predictedTokens).toBeGreaterThan(0)
    expect(outcome.metadata.timings.predictedMs).toBeGreaterThan(0)
    expect(outcome.metadata.speed.decodeTokensPerSecond).toBeGreaterThan(0)
  } else {
    expect(outcome.error).toMatchObject({ code: expect.stringMatching(/^(invalid-output|context-full)$/) })
    expect(outcome.error!.message).toContain("llama.cpp model 'advisor-chain tiny test model")
  }
  // However the nonsense run ends (an answer, a reply cut off by maxTokens, a stop), it ends.
  const stop = demo(page).getByRole('button', { name: 'Stop' })
  if (await stop.isVisible()) await stop.click()
  await idle(page)
  const run = await waitForRun(page)
  expect(['ok', 'aborted', 'error']).toContain(run.status)
  if (run.status === 'error')
    await expect(demo(page).getByRole('alert').last()).toContainText("llama.cpp model 'advisor-chain tiny test model")
})
