// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_events.h"
#include "core/diffusion/sdar_sampler.h"
#include "core/engine/model_session.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

class QThread;

namespace dice {

// What one generation asks for. Purpose lets the area that asked recognise its answers.
struct GenerationRequest {
    QString prompt;
    bool chat = false;
    SamplerOptions options;
    // After the diffusion run, decode the same prompt autoregressively (block 1, 1 step) for the
    // side-by-side plots.
    bool alsoAutoregressive = false;
    QString purpose;
};

struct GenerationOutcome {
    quint64 id = 0;
    int pass = 0; // 0: as asked, 1: the autoregressive comparison
    QString purpose;
    QString text;
    GenerationResult result;
    qint64 promptTokens = 0;
};

// The model's one owner thread. Loading and every generation run there, one at a time, never on
// the GUI thread; each answer carries the id of the request it answers. A newer request
// supersedes an older one that has not started; Stop cancels the one in flight between forward
// passes.
class ModelRunner : public QObject {
    Q_OBJECT
public:
    explicit ModelRunner(QObject* parent = nullptr);
    ~ModelRunner() override;

    void load(const QString& folder, const ModelPlacement& placement, int cpuThreads);
    void cancelLoad();
    void unload();
    // Returns the request id.
    quint64 generate(const GenerationRequest& request);
    void stop();

    bool isLoaded() const { return m_session != nullptr; }
    bool isLoading() const { return m_loading; }
    bool isGenerating() const { return m_running != 0; }
    quint64 runningRequest() const { return m_running; }
    // Valid while loaded.
    const ModelSummary& summary() const { return m_summary; }
    // The text of one token, from any thread (the tokenizer's decoding is thread-safe).
    QString tokenText(qint64 id) const;

Q_SIGNALS:
    void loadProgress(int percent, const QString& tensor);
    void loaded();
    void loadFailed(const QString& message);
    void unloaded();
    void generationStarted(quint64 id, int pass);
    void step(quint64 id, int pass, const dice::DecodeStep& step);
    void generationFinished(const dice::GenerationOutcome& outcome);
    void generationFailed(quint64 id, const QString& message);
    // Every pass of the request is over (finished, failed, cancelled or superseded).
    void requestDone(quint64 id);

private:
    QThread* m_thread;
    QObject* m_context; // lives in m_thread; work is queued to it
    std::shared_ptr<ModelSession> m_session;
    ModelSummary m_summary;
    std::atomic<bool> m_cancelLoad{false};
    std::atomic<bool> m_cancelRun{false};
    std::atomic<quint64> m_latest{0};
    quint64 m_nextId = 1;
    quint64 m_running = 0;
    bool m_loading = false;
};

} // namespace dice

Q_DECLARE_METATYPE(dice::DecodeStep)
Q_DECLARE_METATYPE(dice::GenerationOutcome)
