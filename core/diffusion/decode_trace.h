// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_events.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dice {

// The state of one answer cell after some number of steps.
struct CellState {
    bool committed = false;
    std::int64_t token = -1;
    int globalStep = -1; // the step that committed it
    int block = -1;
    float confidence = 0;
};

// Per-step figures for the plots.
struct StepFigures {
    int globalStep = 0;
    int committed = 0;              // tokens committed by this step
    double meanConfidence = 0;      // of those tokens
    std::int64_t forwardPasses = 0; // passes so far
    std::int64_t tokensSoFar = 0;   // tokens committed so far
    double elapsedMs = 0;
};

// The recorded decoding of one sequence: every step event, in order. It answers what the canvas,
// the timeline and the plots need: the cells after any number of steps, and figures per step.
// Steps are counted over Denoise events only (0 = nothing committed yet).
class DecodeTrace {
public:
    void clear();
    // Events of other sequences are ignored; the first event fixes the sequence.
    void append(const DecodeStep& step);

    const std::vector<DecodeStep>& events() const { return m_events; }
    int stepCount() const { return static_cast<int>(m_denoise.size()); }
    // The number of answer cells the trace has touched so far.
    std::int64_t length() const { return m_length; }
    bool finished() const { return m_finished; }

    // Cells after the first `steps` denoising steps (steps >= stepCount() gives the final state).
    std::vector<CellState> cellsAfter(int steps) const;
    // The block being denoised at that point, as [start, start + length) in answer positions.
    std::pair<std::int64_t, int> activeBlockAfter(int steps) const;
    std::vector<StepFigures> figures() const;

    std::int64_t forwardPasses() const;
    double elapsedMs() const;
    // Milliseconds until the first block of the answer was complete (its commit pass), or -1.
    double timeToFirstBlockMs() const;

    // One JSON object per event, one per line.
    std::string toJsonLines() const;
    // Throws dice::Error naming the line that is wrong.
    static DecodeTrace fromJsonLines(const std::string& text);

private:
    std::vector<DecodeStep> m_events;
    std::vector<std::size_t> m_denoise; // indices of Denoise events
    int m_sequence = -1;
    std::int64_t m_length = 0;
    bool m_finished = false;
};

nlohmann::json toJson(const DecodeStep& step);
// Throws dice::Error when a field is missing or of the wrong type.
DecodeStep decodeStepFromJson(const nlohmann::json& json);
const char* toString(DecodeStep::Kind kind);

} // namespace dice
