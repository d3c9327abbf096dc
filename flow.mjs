import { chromium } from 'playwright-core'
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
page.on('pageerror', (e) => console.log('pageerror:', e.message, e.stack?.slice(0, 500)))
page.on('console', (m) => {
  if (m.type() === 'error') console.log('console:', m.text().slice(0, 300))
})
await page.goto(process.argv[2] ?? 'http://127.0.0.1:4191/')
await page.waitForTimeout(1500)
for (const text of (process.argv[3] ?? 'Note: buy oat milk, then list my notes').split('|')) {
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
  await page.waitForTimeout(2500)
}
await page.screenshot({ path: '/tmp/shot2.png' })
await browser.close()
