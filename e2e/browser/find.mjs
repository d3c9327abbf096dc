// Finds a Chromium for Playwright and Vitest's browser mode, in this order: an explicit env var,
// Playwright's own installed Chromium, the system Chromium. Never downloads anything.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

export const BROWSER_ENV = 'ADVISOR_CHAIN_CHROMIUM'
export const SYSTEM_CHROMIUMS = ['/usr/bin/chromium', '/usr/bin/chromium-browser']
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** @returns {{ source: 'env' | 'playwright' | 'system', executablePath: string | undefined } | null} */
export function findChromium() {
  const fromEnv = process.env[BROWSER_ENV]
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new Error(`${BROWSER_ENV}=${fromEnv} does not exist; point it at a Chromium or Chrome binary`)
    return { source: 'env', executablePath: fromEnv }
  }
  const playwrightPath = playwrightChromium()
  if (playwrightPath && existsSync(playwrightPath)) return { source: 'playwright', executablePath: undefined }
  const system = SYSTEM_CHROMIUMS.find((path) => existsSync(path))
  if (system) return { source: 'system', executablePath: system }
  return null
}

/** Launch options for `chromium.launch()`; `extraArgs` e.g. `--enable-unsafe-webgpu`. */
export function chromiumLaunchOptions(extraArgs = []) {
  const found = findChromium()
  return {
    ...(found?.executablePath ? { executablePath: found.executablePath } : {}),
    args: [...CHROMIUM_ARGS, ...extraArgs],
  }
}

function playwrightChromium() {
  try {
    const require = createRequire(import.meta.url)
    const { chromium } = require('playwright-core')
    return chromium.executablePath()
  } catch {
    return undefined
  }
}
