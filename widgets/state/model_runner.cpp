// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/model_runner.h"

#include "core/common/error.h"
#include "core/tokenizer/tokenizer.h"

#include <QMetaObject>
#include <QThread>

namespace dice {

ModelRunner::ModelRunner(QObject* parent)
    : QObject(parent)
    , m_thread(new QThread(this))
    , m_context(new QObject) {
    qRegisterMetaType<dice::DecodeStep>();
    qRegisterMetaType<dice::GenerationOutcome>();
    m_thread->setObjectName(QStringLiteral("model"));
    m_context->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_context, &QObject::deleteLater);
    m_thread->start();
}

ModelRunner::~ModelRunner() {
    m_cancelLoad = true;
    m_cancelRun = true;
    // The session is released on its own thread, after whatever runs there now.
    QMetaObject::invokeMethod(m_context,
                              [session = std::move(m_session)]() mutable { session.reset(); });
    m_thread->quit();
    m_thread->wait();
}

void ModelRunner::load(const QString& folder, const ModelPlacement& placement, int cpuThreads) {
    if (m_loading)
        return;
    m_loading = true;
    m_cancelLoad = false;
    m_cancelRun = true;
    QMetaObject::invokeMethod(m_context, [this, folder, placement, cpuThreads] {
        m_cancelRun = false;
        SessionOptions options;
        options.load.placement = placement;
        options.load.cancel = &m_cancelLoad;
        options.cpuThreads = cpuThreads;
        int lastPercent = -1;
        options.load.progress = [this, &lastPercent](const LoadProgress& p) {
            if (p.bytesTotal == 0)
                return;
            const int percent = static_cast<int>(100.0 * static_cast<double>(p.bytesDone) /
                                                 static_cast<double>(p.bytesTotal));
            if (percent == lastPercent)
                return;
            lastPercent = percent;
            Q_EMIT loadProgress(percent, QString::fromStdString(p.tensor));
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
        QMetaObject::invokeMethod(this, [this, session, error] {
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
    m_cancelLoad = true;
}

void ModelRunner::unload() {
    if (!m_session)
        return;
    stop();
    QMetaObject::invokeMethod(m_context,
                              [session = std::move(m_session)]() mutable { session.reset(); });
    m_session.reset();
    m_summary = ModelSummary();
    Q_EMIT unloaded();
}

quint64 ModelRunner::generate(const GenerationRequest& request) {
    const quint64 id = m_nextId++;
    m_latest = id;
    if (m_running != 0)
        m_cancelRun = true;
    std::shared_ptr<ModelSession> session = m_session;
    QMetaObject::invokeMethod(m_context, [this, id, request, session] {
        // A newer request arrived while this one waited: it is superseded.
        if (m_latest.load() != id) {
            Q_EMIT requestDone(id);
            return;
        }
        m_cancelRun = false;
        QMetaObject::invokeMethod(this, [this, id] { m_running = id; });
        if (!session) {
            Q_EMIT generationFailed(id, tr("No model is loaded."));
            QMetaObject::invokeMethod(this, [this, id] {
                if (m_running == id)
                    m_running = 0;
                Q_EMIT requestDone(id);
            });
            return;
        }
        const int passes = request.alsoAutoregressive ? 2 : 1;
        for (int pass = 0; pass < passes; ++pass) {
            if (pass > 0 && m_cancelRun.load())
                break;
            SamplerOptions options = request.options;
            if (pass == 1) {
                options.blockLength = 1;
                options.steps = 1;
                options.strategy = RemaskStrategy::LowConfidenceStatic;
            }
            options.cancel = &m_cancelRun;
            Q_EMIT generationStarted(id, pass);
            try {
                const auto prompt =
                    session->encodePrompt(request.prompt.toStdString(), request.chat);
                TextGeneration out =
                    session->generate(prompt, options, [this, id, pass](const DecodeStep& s) {
                        Q_EMIT step(id, pass, s);
                    });
                GenerationOutcome outcome;
                outcome.id = id;
                outcome.pass = pass;
                outcome.purpose = request.purpose;
                outcome.text = QString::fromStdString(out.text);
                outcome.result = std::move(out.result);
                outcome.promptTokens = static_cast<qint64>(prompt.size());
                Q_EMIT generationFinished(outcome);
            } catch (const std::exception& e) {
                Q_EMIT generationFailed(id, QString::fromStdString(e.what()));
                break;
            }
        }
        QMetaObject::invokeMethod(this, [this, id] {
            if (m_running == id)
                m_running = 0;
            Q_EMIT requestDone(id);
        });
    });
    return id;
}

void ModelRunner::stop() {
    m_cancelRun = true;
    m_latest = 0;
}

QString ModelRunner::tokenText(qint64 id) const {
    if (!m_session)
        return QString();
    return QString::fromStdString(m_session->tokenText(id));
}

} // namespace dice
