/// \file
/// The DQN agent (LibTorch): registered on demand so that only binaries that want it link
/// LibTorch. Call register_dqn_agent() once before looking agents up by name.
#pragma once

namespace lw {
void register_dqn_agent();
}  // namespace lw
