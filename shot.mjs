import { chromium } from 'playwright-core'
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
const page = await browser.newPage({ viewport: { width: 1400, height: 950 } })
page.on('console', (m) => console.log('console:', m.type(), m.text().slice(0, 300)))
page.on('pageerror', (e) => console.log('pageerror:', e.message, e.stack?.slice(0, 800)))
page.on('requestfailed', (r) => console.log('failed', r.url()))
page.on('response', (r) => {
  if (r.status() >= 400) console.log('status', r.status(), r.url())
})
await page.goto(process.argv[2] ?? 'http://127.0.0.1:4191/')
await page.waitForTimeout(4000)
await page.screenshot({ path: '/tmp/shot1.png' })
await browser.close()
