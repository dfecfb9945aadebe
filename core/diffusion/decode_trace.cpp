// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/diffusion/decode_trace.h"

#include "core/common/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace dice {

const char* toString(DecodeStep::Kind kind) {
    switch (kind) {
    case DecodeStep::Kind::Prefill:
        return "prefill";
    case DecodeStep::Kind::Denoise:
        return "denoise";
    case DecodeStep::Kind::Commit:
        return "commit";
    case DecodeStep::Kind::Finished:
        return "finished";
    }
    return "denoise";
}

nlohmann::json toJson(const DecodeStep& s) {
    return nlohmann::json{{"kind", toString(s.kind)},
                          {"sequence", s.sequence},
                          {"block", s.block},
                          {"step", s.step},
                          {"global_step", s.globalStep},
                          {"block_start", s.blockStart},
                          {"block_length", s.blockLength},
                          {"positions", s.positions},
                          {"tokens", s.tokens},
                          {"confidences", s.confidences},
                          {"forward_passes", s.forwardPasses},
                          {"elapsed_ms", s.elapsedMs}};
}

DecodeStep decodeStepFromJson(const nlohmann::json& j) {
    if (!j.is_object())
        throw Error("a step must be a JSON object");
    DecodeStep s;
    try {
        const std::string kind = j.at("kind").get<std::string>();
        if (kind == "prefill")
            s.kind = DecodeStep::Kind::Prefill;
        else if (kind == "denoise")
            s.kind = DecodeStep::Kind::Denoise;
        else if (kind == "commit")
            s.kind = DecodeStep::Kind::Commit;
        else if (kind == "finished")
            s.kind = DecodeStep::Kind::Finished;
        else
            throw Error("unknown step kind \"" + kind + "\"");
        s.sequence = j.value("sequence", 0);
        s.block = j.value("block", 0);
        s.step = j.value("step", 0);
        s.globalStep = j.value("global_step", 0);
        s.blockStart = j.value("block_start", std::int64_t{0});
        s.blockLength = j.value("block_length", 0);
        s.positions = j.value("positions", std::vector<std::int64_t>{});
        s.tokens = j.value("tokens", std::vector<std::int64_t>{});
        s.confidences = j.value("confidences", std::vector<float>{});
        s.forwardPasses = j.value("forward_passes", std::int64_t{0});
        s.elapsedMs = j.value("elapsed_ms", 0.0);
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("malformed step: ") + e.what());
    }
    if (s.positions.size() != s.tokens.size() || s.positions.size() != s.confidences.size())
        throw Error("positions, tokens and confidences differ in length");
    for (auto p : s.positions)
        if (p < 0 || p > (std::int64_t{1} << 40))
            throw Error("position " + std::to_string(p) + " is out of range");
    return s;
}

void DecodeTrace::clear() {
    *this = DecodeTrace();
}

void DecodeTrace::append(const DecodeStep& step) {
    if (m_sequence < 0)
        m_sequence = step.sequence;
    if (step.sequence != m_sequence)
        return;
    if (step.kind == DecodeStep::Kind::Denoise)
        m_denoise.push_back(m_events.size());
    if (step.kind == DecodeStep::Kind::Finished)
        m_finished = true;
    for (auto p : step.positions)
        m_length = std::max(m_length, p + 1);
    if (step.kind != DecodeStep::Kind::Prefill)
        m_length = std::max(m_length, step.blockStart + step.blockLength);
    m_events.push_back(step);
}

std::vector<CellState> DecodeTrace::cellsAfter(int steps) const {
    std::vector<CellState> cells(static_cast<std::size_t>(m_length));
    const int count = std::min<int>(std::max(steps, 0), stepCount());
    for (int i = 0; i < count; ++i) {
        const DecodeStep& s = m_events[m_denoise[static_cast<std::size_t>(i)]];
        for (std::size_t k = 0; k < s.positions.size(); ++k) {
            const auto p = s.positions[k];
            if (p < 0 || p >= m_length)
                continue;
            auto& c = cells[static_cast<std::size_t>(p)];
            c.committed = true;
            c.token = s.tokens[k];
            c.globalStep = i + 1;
            c.block = s.block;
            c.confidence = s.confidences[k];
        }
    }
    return cells;
}

std::pair<std::int64_t, int> DecodeTrace::activeBlockAfter(int steps) const {
    if (m_denoise.empty())
        return {0, 0};
    const int index = std::clamp(steps, 1, stepCount()) - 1;
    const DecodeStep& s = m_events[m_denoise[static_cast<std::size_t>(index)]];
    return {s.blockStart, s.blockLength};
}

std::vector<StepFigures> DecodeTrace::figures() const {
    std::vector<StepFigures> out;
    std::int64_t tokens = 0;
    for (std::size_t i = 0; i < m_denoise.size(); ++i) {
        const DecodeStep& s = m_events[m_denoise[i]];
        StepFigures f;
        f.globalStep = static_cast<int>(i) + 1;
        f.committed = static_cast<int>(s.positions.size());
        double sum = 0;
        for (float c : s.confidences)
            sum += c;
        f.meanConfidence =
            s.confidences.empty() ? 0 : sum / static_cast<double>(s.confidences.size());
        tokens += f.committed;
        f.tokensSoFar = tokens;
        f.forwardPasses = s.forwardPasses;
        f.elapsedMs = s.elapsedMs;
        out.push_back(f);
    }
    return out;
}

std::int64_t DecodeTrace::forwardPasses() const {
    std::int64_t passes = 0;
    for (const auto& e : m_events)
        passes = std::max(passes, e.forwardPasses);
    return passes;
}

double DecodeTrace::elapsedMs() const {
    return m_events.empty() ? 0 : m_events.back().elapsedMs;
}

double DecodeTrace::timeToFirstBlockMs() const {
    for (const auto& e : m_events)
        if (e.kind == DecodeStep::Kind::Commit)
            return e.elapsedMs;
    return -1;
}

std::string DecodeTrace::toJsonLines() const {
    std::string out;
    for (const auto& e : m_events)
        out += toJson(e).dump() + "\n";
    return out;
}

DecodeTrace DecodeTrace::fromJsonLines(const std::string& text) {
    DecodeTrace trace;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty())
            continue;
        try {
            trace.append(decodeStepFromJson(nlohmann::json::parse(line)));
        } catch (const nlohmann::json::exception& e) {
            throw Error("trace line " + std::to_string(number) + ": not JSON: " + e.what());
        } catch (const Error& e) {
            throw Error("trace line " + std::to_string(number) + ": " + e.what());
        }
    }
    return trace;
}

} // namespace dice
