// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/shell/system_status.h"

#include "widgets/state/workbench_state.h"

#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QThreadPool>

namespace dice {

SystemStatus::SystemStatus(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_gpu(new QLabel(this))
    , m_driver(new QLabel(this))
    , m_cuda(new QLabel(this))
    , m_torch(new QLabel(this))
    , m_model(new QLabel(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(14);
    for (QLabel* label : {m_gpu, m_driver, m_cuda, m_torch, m_model}) {
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(label);
    }
    connect(m_state, &WorkbenchState::systemInfoChanged, this, &SystemStatus::updateLabels);
    connect(m_state, &WorkbenchState::modelChanged, this, &SystemStatus::updateLabels);
    updateLabels();
}

void SystemStatus::refresh() {
    QPointer<WorkbenchState> state(m_state);
    QThreadPool::globalInstance()->start([state] {
        const SystemInfo info = collectSystemInfo();
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [state, info] {
                if (state)
                    state->setSystemInfo(info);
            },
            Qt::QueuedConnection);
    });
}

void SystemStatus::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        updateLabels();
    QWidget::changeEvent(event);
}

void SystemStatus::updateLabels() {
    const auto& info = m_state->systemInfo();
    if (!info) {
        m_gpu->setText(tr("Checking the machine…"));
        m_driver->clear();
        m_cuda->clear();
        m_torch->clear();
    } else {
        if (info->devices.empty()) {
            m_gpu->setText(tr("No GPU"));
            m_gpu->setToolTip(tr("Kernels can be compiled but not run or timed: %1")
                                  .arg(QString::fromStdString(info->driverStatus)));
        } else {
            const auto& d = info->devices.front();
            m_gpu->setText(
                tr("GPU: %1 (%2)")
                    .arg(QString::fromStdString(d.name), QString::fromStdString(d.architecture())));
            m_gpu->setToolTip(tr("%n GPU(s)", nullptr, static_cast<int>(info->devices.size())));
        }
        m_driver->setText(
            info->driverAvailable
                ? tr("Driver: CUDA %1").arg(QString::fromStdString(info->driverVersion))
                : tr("Driver: none"));
        m_cuda->setText(tr("CUDA toolkit: %1 · NVRTC %2")
                            .arg(QString::fromStdString(info->cudaToolkitVersion),
                                 QString::fromStdString(info->nvrtcVersion)));
        m_torch->setText(
            info->libtorchCuda
                ? tr("LibTorch %1 (CUDA %2)")
                      .arg(QString::fromStdString(info->libtorchVersion),
                           QString::fromStdString(info->libtorchCudaVersion))
                : tr("LibTorch %1 (CPU)").arg(QString::fromStdString(info->libtorchVersion)));
    }
    m_model->setText(m_state->modelLoaded() ? tr("Model: %1").arg(m_state->modelName())
                                            : tr("No model loaded"));
}

QString SystemStatus::summary() const {
    return QStringList{m_gpu->text(), m_driver->text(), m_cuda->text(), m_torch->text(),
                       m_model->text()}
        .join(QStringLiteral(" | "));
}

} // namespace dice
