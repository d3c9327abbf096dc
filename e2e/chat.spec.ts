import { expect, test } from '@playwright/test'

test('a conversation with the scripted model streams through both logging advisors', async ({ page }, testInfo) => {
  await page.goto('/')
  await page.getByLabel('Message').fill('Hello')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(page.getByTestId('message-assistant')).toContainText('scripted model of the offline demo')
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible()
  await expect(page.getByTestId('chain-entry')).toHaveText([
    /Outer logger.*before/,
    /Inner logger.*before/,
    /Inner logger.*after/,
    /Outer logger.*after/,
  ])
  await page.screenshot({ path: testInfo.outputPath('chat.png'), fullPage: true })
})
