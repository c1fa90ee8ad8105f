/** Command ids (package.json contributes them), shared by the host, the webview and the tests. */
export const COMMANDS = {
  addReminder: 'lifeThread.addReminder',
  scheduleCommand: 'lifeThread.scheduleCommand',
  wakeOnTaskEnd: 'lifeThread.wakeOnTaskEnd',
  listSchedule: 'lifeThread.listSchedule',
  partition: 'lifeThread.partition',
  approvePartition: 'lifeThread.approvePartition',
  doctor: 'lifeThread.doctor',
  pauseWakes: 'lifeThread.pauseWakes',
  resumeWakes: 'lifeThread.resumeWakes',
  openPanel: 'lifeThread.openPanel',
  openLanding: 'lifeThread.openLanding',
  openDesk: 'lifeThread.openDesk',
  setApiKey: 'lifeThread.setApiKey',
  copyMcpConfig: 'lifeThread.copyMcpConfig',
  keepTimeWhileClosed: 'lifeThread.keepTimeWhileClosed',
  sendReadyWake: 'lifeThread.sendReadyWake',
} as const;

export const EXTENSION_ID = 'lifethread.life-thread';
export const SIDEBAR_VIEW_ID = 'lifeThread.sidebar';
export const PANEL_VIEW_TYPE = 'lifeThread.panel';
export const CHAT_PARTICIPANT_ID = 'lifethread.life';
export const LM_VENDOR = 'lifethread';
