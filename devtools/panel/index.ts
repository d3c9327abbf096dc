export { AdvisorDevtools, type AdvisorDevtoolsProps } from './AdvisorDevtools'
export { AdvisorDevtoolsPanel, type DevtoolsPanelProps } from './DevtoolsPanel'
