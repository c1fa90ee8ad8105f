// The desk bench's window with the warm-up on (../deskFirstWake.ts).
import { deskFirstWakePhase } from '../deskFirstWake';

deskFirstWakePhase('prepared');
