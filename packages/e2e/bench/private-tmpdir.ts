// Imported first by every benchmark here, so that everything a run makes goes in a temporary root of its own,
// removed when the process exits (see usePrivateTmpdir).
import { usePrivateTmpdir } from "@outpost/testkit/bench";

usePrivateTmpdir();
