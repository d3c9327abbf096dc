import { expect, test } from '@playwright/test'
import { waitForRun } from 'advisor-chain/playwright'
import { devtools, openDemo, send } from './support'

test('the timeline zooms with Ctrl+wheel and the keyboard, pans with Shift+arrows, and fits the run again with 0', async ({
  page,
}) => {
  await openDemo(page)
  await send(page, 'Note: buy bread, then list my notes')
  await waitForRun(page)
  const panel = devtools(page)
  const range = panel.locator('.zoom-bar > .muted')
  await expect(range).toContainText('Whole run')

  const lane = panel.getByTestId('timeline-round').first().locator('.lane')
  const box = (await lane.boundingBox())!
  await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2)
  await page.keyboard.down('Control')
  await page.mouse.wheel(0, -400)
  await page.keyboard.up('Control')
  await expect(range).not.toContainText('Whole run')
  const zoomed = await range.innerText()

  await panel.getByTestId('timeline-round').first().focus()
  await page.keyboard.press('Shift+ArrowLeft')
  await expect(range).not.toHaveText(zoomed)
  await page.keyboard.press('+')
  await expect(range).not.toContainText('Whole run')
  await page.keyboard.press('0')
  await expect(range).toContainText('Whole run')
  await panel.getByRole('button', { name: 'Zoom into the timeline' }).click()
  await expect(range).not.toContainText('Whole run')
  await panel.getByRole('button', { name: 'Fit' }).click()
  await expect(range).toContainText('Whole run')
})
