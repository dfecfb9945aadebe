// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_events.h"
#include "core/diffusion/sdar_sampler.h"
#include "core/engine/model_session.h"
#include "widgets/state/owner_thread.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

namespace dice {

// What one generation asks for.
struct GenerationRequest {
    QString prompt;
    bool chat = false;
    SamplerOptions options;
    // After the diffusion run, decode the same prompt autoregressively (block 1, 1 step) for the
    // side-by-side plots.
    bool alsoAutoregressive = false;
    // A budget longer than what the model's positions leave after the prompt is cut to fit
    // rather than refused: the Generate area's default is the paper's 4,096 tokens, more than a
    // small model's context holds once a long prompt is in.
    bool fitBudget = false;
};

struct GenerationOutcome {
    int pass = 0; // 0: as asked, 1: the autoregressive comparison
    QString text;
    GenerationResult result;
    qint64 promptTokens = 0;
};

// One generation: the steps and the outcome of each pass (the one asked for, then the
// autoregressive comparison when requested). Cancelling stops it between forward passes; the
// pass cut short still finishes, with the reason Cancelled, and the comparison pass is skipped.
class GenerationJob : public Job {
    Q_OBJECT
public:
    explicit GenerationJob(QObject* parent = nullptr)
        : Job(parent) {}

Q_SIGNALS:
    void step(int pass, const dice::DecodeStep& step);
    void finished(const dice::GenerationOutcome& outcome);
    void failed(const QString& message);
};

// The model's one owner thread. Loading and every generation run there, one at a time, never on
// the GUI thread. A newer generation supersedes an older one that has not started and stops the
// one in flight, whichever area asked for them.
class ModelRunner : public QObject {
    Q_OBJECT
public:
    explicit ModelRunner(QObject* parent = nullptr);
    ~ModelRunner() override;

    void load(const QString& folder, const ModelPlacement& placement, int cpuThreads);
    void cancelLoad();
    void unload();
    GenerationJob* generate(const GenerationRequest& request);

    bool isLoaded() const { return m_session != nullptr; }
    bool isLoading() const { return m_loading; }
    // Valid while loaded.
    const ModelSummary& summary() const { return m_summary; }
    // The text of one token, from any thread (the tokenizer's decoding is thread-safe).
    QString tokenText(qint64 id) const;

Q_SIGNALS:
    void loadProgress(int percent, const QString& tensor);
    void loaded();
    void loadFailed(const QString& message);
    void unloaded();

private:
    OwnerThread* m_thread;
    QPointer<Job> m_load;
    std::shared_ptr<ModelSession> m_session;
    ModelSummary m_summary;
    bool m_loading = false;
};

} // namespace dice

Q_DECLARE_METATYPE(dice::DecodeStep)
Q_DECLARE_METATYPE(dice::GenerationOutcome)
