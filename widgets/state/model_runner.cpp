// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/model_runner.h"

#include "core/common/error.h"
#include "core/tokenizer/tokenizer.h"

namespace dice {

namespace {

// Every generation carries it, whichever area asks: the model serves one at a time.
const QString kGenerationTag = QStringLiteral("generation");

} // namespace

ModelRunner::ModelRunner(QObject* parent)
    : QObject(parent)
    , m_thread(new OwnerThread(QStringLiteral("model"), this)) {
    qRegisterMetaType<dice::DecodeStep>();
    qRegisterMetaType<dice::GenerationOutcome>();
}

ModelRunner::~ModelRunner() {
    // The session is released on its own thread, after whatever runs there now; deleting the
    // thread's owner waits for that.
    m_thread->post([session = std::move(m_session)]() mutable { session.reset(); });
    delete m_thread;
}

void ModelRunner::load(const QString& folder, const ModelPlacement& placement, int cpuThreads) {
    if (m_loading)
        return;
    m_loading = true;
    m_thread->cancel(kGenerationTag);
    auto* job = new Job;
    m_load = job;
    m_thread->post(
        job, QString(), OwnerThread::InFlight::Stops,
        [this, folder, placement, cpuThreads](const OwnerThread::Context& context) {
            SessionOptions options;
            options.load.placement = placement;
            options.load.cancel = context.cancelFlag();
            options.cpuThreads = cpuThreads;
            int lastPercent = -1;
            options.load.progress = [this, &context, &lastPercent](const LoadProgress& p) {
                if (p.bytesTotal == 0)
                    return;
                const int percent = static_cast<int>(100.0 * static_cast<double>(p.bytesDone) /
                                                     static_cast<double>(p.bytesTotal));
                if (percent == lastPercent)
                    return;
                lastPercent = percent;
                const QString tensor = QString::fromStdString(p.tensor);
                context.deliver([this, percent, tensor] { Q_EMIT loadProgress(percent, tensor); });
            };
            std::shared_ptr<ModelSession> session;
            QString error;
            try {
                session = ModelSession::open(folder.toStdString(), options);
            } catch (const LoadCancelled&) {
                error = tr("Loading was cancelled.");
            } catch (const std::exception& e) {
                error = QString::fromStdString(e.what());
            }
            context.deliver([this, session, error] {
                m_loading = false;
                if (!session) {
                    Q_EMIT loadFailed(error);
                    return;
                }
                m_session = session;
                m_summary = session->summary();
                Q_EMIT loaded();
            });
        });
}

void ModelRunner::cancelLoad() {
    if (m_load)
        m_load->cancel();
}

void ModelRunner::unload() {
    if (!m_session)
        return;
    m_thread->cancel(kGenerationTag);
    m_thread->post([session = std::move(m_session)]() mutable { session.reset(); });
    m_session.reset();
    m_summary = ModelSummary();
    Q_EMIT unloaded();
}

GenerationJob* ModelRunner::generate(const GenerationRequest& request) {
    auto* job = new GenerationJob;
    std::shared_ptr<ModelSession> session = m_session;
    m_thread->post(
        job, kGenerationTag, OwnerThread::InFlight::Stops,
        [job, request, session](const OwnerThread::Context& context) {
            if (!session) {
                const QString message = tr("No model is loaded.");
                context.deliver([job, message] { Q_EMIT job->failed(message); });
                return;
            }
            const int passes = request.alsoAutoregressive ? 2 : 1;
            for (int pass = 0; pass < passes; ++pass) {
                if (pass > 0 && context.cancelled())
                    break;
                SamplerOptions options = request.options;
                if (pass == 1) {
                    options.blockLength = 1;
                    options.steps = 1;
                    options.strategy = RemaskStrategy::LowConfidenceStatic;
                }
                options.cancel = context.cancelFlag();
                try {
                    const auto prompt =
                        session->encodePrompt(request.prompt.toStdString(), request.chat);
                    if (request.fitBudget)
                        options.maxTokens =
                            std::min(options.maxTokens,
                                     session->tokensLeft(prompt.size(), options.blockLength));
                    TextGeneration out = session->generate(
                        prompt, options, [&context, job, pass](const DecodeStep& s) {
                            context.deliver([job, pass, s] { Q_EMIT job->step(pass, s); });
                        });
                    GenerationOutcome outcome;
                    outcome.pass = pass;
                    outcome.text = QString::fromStdString(out.text);
                    outcome.result = std::move(out.result);
                    outcome.promptTokens = static_cast<qint64>(prompt.size());
                    context.deliver([job, outcome] { Q_EMIT job->finished(outcome); });
                } catch (const std::exception& e) {
                    const QString message = QString::fromStdString(e.what());
                    context.deliver([job, message] { Q_EMIT job->failed(message); });
                    break;
                }
            }
        });
    return job;
}

QString ModelRunner::tokenText(qint64 id) const {
    if (!m_session)
        return QString();
    return QString::fromStdString(m_session->tokenText(id));
}

} // namespace dice
