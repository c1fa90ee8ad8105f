import * as vscode from 'vscode';
import { COMMANDS } from '../shared/commands';
import type { WebviewRequest } from '../shared/protocol';
import type { Continuity } from './continuity';
import type { FeedFeature } from './feedFeature';
import type { Lander } from './landing';
import type { OwnerZoneKeeper } from './ownerZone';
import { clearFiredRows, moveRow, removeRow, runNowRow, showLog } from './scheduleCommands';
import type { ScheduleFeature } from './scheduleFeature';
import type { ViewModel } from './viewModel';
import type { WakeFeature } from './wakeFeature';
import type { RequestHandler } from './webviewBridge';

/** What the sidebar's and the panel's requests reach: the parts of the features they use. */
export interface WebviewRequestTargets {
  schedule: ScheduleFeature;
  model: Pick<ViewModel, 'update'>;
  feed: Pick<FeedFeature, 'clear'>;
  zones: Pick<OwnerZoneKeeper, 'uiReported'>;
  continuity: Pick<Continuity, 'approve' | 'edit' | 'refresh' | 'showInPanel'>;
  lander: Pick<Lander, 'openMessage'>;
  wakes: Pick<WakeFeature, 'cancel'>;
}

/** The one function behind every webview request (the sidebar's, the panel's, and the host tests' `api.webviewRequest`). */
export function webviewRequests(to: WebviewRequestTargets): RequestHandler {
  return async (req: WebviewRequest): Promise<void> => {
    switch (req.method) {
      case 'approvePartition':
        await to.continuity.approve(req.params.topic);
        return;
      case 'editPartition':
        return to.continuity.edit(req.params.topic);
      case 'openAnchor':
        await to.lander.openMessage(req.params.topic, req.params.msgId, req.params.start, req.params.end);
        return;
      case 'recheckOps':
        return to.continuity.refresh();
      case 'showTopic':
        return to.continuity.showInPanel(req.params.topic);
      case 'runNow':
        return runNowRow(to.schedule, req.params.id);
      case 'move':
        return moveRow(to.schedule, req.params.id);
      case 'remove':
        if (req.params.id.startsWith('w-')) {
          await to.wakes.cancel(req.params.id);
          return;
        }
        return removeRow(to.schedule, req.params.id);
      case 'showLog':
        return showLog(to.schedule, req.params.id);
      case 'doctor':
        await vscode.commands.executeCommand(COMMANDS.doctor);
        return;
      case 'openPanel':
        await vscode.commands.executeCommand(COMMANDS.openPanel);
        return;
      case 'openDesk':
        await vscode.commands.executeCommand(COMMANDS.openDesk);
        return;
      case 'addReminder':
        await vscode.commands.executeCommand(COMMANDS.addReminder);
        return;
      case 'scheduleCommand':
        await vscode.commands.executeCommand(COMMANDS.scheduleCommand);
        return;
      case 'closeFocus':
        return to.model.update({ focus: null });
      case 'clearFeed':
        return to.feed.clear();
      case 'clearFired':
        return clearFiredRows(to.schedule).then(() => undefined);
      case 'reportZone':
        return to.zones.uiReported(req.params.timeZone);
    }
  };
}
