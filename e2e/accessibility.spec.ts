import { createRequire } from 'node:module'
import { expect, test, type Page } from '@playwright/test'
import { installScriptedModel } from 'advisor-chain/playwright'
import { demo, devtools, idle, openDemo } from './support'

// axe-core's WCAG A and AA rules over the demo with the devtools open after a two-round tool chat,
// in the light and the dark theme (axe reads the panel's open shadow root too).

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

interface Violation {
  id: string
  help: string
  nodes: Array<{ target: unknown[]; failureSummary?: string }>
}

async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axePath })
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> } }
    ).axe
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    })
    return result.violations
  })
  return found.flatMap((violation) =>
    violation.nodes.map((node) => `${violation.id}: ${JSON.stringify(node.target)} ${node.failureSummary ?? ''}`),
  )
}

async function twoRoundChat(page: Page): Promise<void> {
  await installScriptedModel(page, [
    { text: 'Let me add that. ', toolCalls: [{ id: 'a1', name: 'add_note', arguments: { text: 'milk' } }] },
    'Added milk to your notes.',
  ])
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Add milk to my notes')
  await demo(page).getByRole('button', { name: 'Send' }).click()
  await idle(page)
  await devtools(page).getByTestId('run-row').first().click()
  await expect(devtools(page).getByTestId('timeline-round').first()).toBeVisible()
}

for (const theme of ['light', 'dark'] as const) {
  test(`the demo with the devtools open has no WCAG AA violation (${theme} theme)`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme })
    await openDemo(page)
    await twoRoundChat(page)
    expect(await violations(page)).toEqual([])
  })
}
