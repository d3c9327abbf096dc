// The API report: every name each entry of package.json `exports` exports, with its declaration,
// checked in under api/ (API Extractor, reading the built declarations in dist/). A change to the
// public API fails this check until the report is updated with `npm run api:update`, so an
// accidental export or a breaking change shows up in review.
// Usage: node scripts/api-report.mjs [--update]   (needs `npm run build` first)
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor'
import { packageEntries, root } from './entries.mjs'

const update = process.argv.includes('--update')
const reportFolder = join(root, 'api')
const tempFolder = join(root, 'node_modules', '.api-report')
mkdirSync(reportFolder, { recursive: true })
rmSync(tempFolder, { recursive: true, force: true })

const entries = packageEntries()
const configs = entries.map((entry) =>
  ExtractorConfig.prepare({
    packageJsonFullPath: join(root, 'package.json'),
    configObjectFullPath: undefined,
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(root, entry.types),
      // The declarations as an app reads them: Node's resolution, no ambient Node or Vite types.
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            jsx: 'react-jsx',
            strict: true,
            skipLibCheck: true,
            types: [],
          },
          files: entries.map((other) => join(root, other.types)),
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.specifier.replaceAll('/', '-'),
        reportFolder,
        reportTempFolder: tempFolder,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        // The report is the point here, not API Extractor's documentation conventions (release tags, TSDoc).
        extractorMessageReporting: { default: { logLevel: 'none' } },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  }),
)

// One TypeScript program for every entry: they share most declarations.
const compilerState = CompilerState.create(configs[0], {
  additionalEntryPoints: configs.map((config) => config.mainEntryPointFilePath),
})
const changed = []
for (const [index, config] of configs.entries()) {
  const result = Extractor.invoke(config, {
    compilerState,
    localBuild: update,
    messageCallback: (message) => {
      // Only what says something about our API: its own warnings and errors, not progress lines.
      if (message.category === 'console' && message.logLevel !== 'error') message.handled = true
    },
  })
  if (result.errorCount > 0 || result.warningCount > 0) {
    if (result.apiReportChanged) {
      if (!update) changed.push(entries[index].specifier)
    } else throw new Error(`API Extractor failed on ${entries[index].types}; see the messages above`)
  }
}
if (changed.length > 0) {
  console.error(
    `The public API changed for ${changed.join(', ')}: the new reports are in ${tempFolder}.\n` +
      `If the change is intended, run \`npm run api:update\` and commit api/.`,
  )
  process.exit(1)
}
console.log(`API report: ${entries.length} entries ${update ? 'written to' : 'match'} api/`)
