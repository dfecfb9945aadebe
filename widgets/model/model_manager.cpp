// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/model/model_manager.h"

#include "core/common/file_util.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/model/model_config.h"
#include "widgets/state/model_runner.h"

#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace dice {

namespace {

const char* const kAddedKey = "models/added";

QString embeddedModelsDirectory() {
    return QDir(QString::fromStdString(dataDirectory())).filePath(QStringLiteral("models"));
}

bool isModelFolder(const QString& folder) {
    return QFileInfo::exists(QDir(folder).filePath(QStringLiteral("config.json")));
}

} // namespace

ModelManager::ModelManager(ModelRunner* runner, QWidget* parent)
    : QDialog(parent)
    , m_runner(runner) {
    setObjectName(QStringLiteral("ModelManager"));
    m_added = QSettings().value(QLatin1String(kAddedKey)).toStringList();
    m_list = new QListWidget(this);
    m_details = new QLabel(this);
    m_details->setObjectName(QStringLiteral("ModelDetails"));
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setMinimumWidth(320);
    m_device = new QComboBox(this);
    m_dtype = new QComboBox(this);
    m_threads = new QSpinBox(this);
    m_threads->setRange(0, 256);
    m_deviceLabel = new QLabel(this);
    m_dtypeLabel = new QLabel(this);
    m_threadsLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->setValue(0);
    m_state = new QLabel(this);
    m_state->setWordWrap(true);
    m_add = new QPushButton(this);
    m_remove = new QPushButton(this);
    m_load = new QPushButton(this);
    m_cancel = new QPushButton(this);
    m_unload = new QPushButton(this);
    m_close = new QPushButton(this);

    auto* form = new QFormLayout;
    form->addRow(m_deviceLabel, m_device);
    form->addRow(m_dtypeLabel, m_dtype);
    form->addRow(m_threadsLabel, m_threads);
    auto* right = new QVBoxLayout;
    right->addWidget(m_details, 1);
    right->addLayout(form);
    right->addWidget(m_progress);
    right->addWidget(m_state);
    auto* listButtons = new QHBoxLayout;
    listButtons->addWidget(m_add);
    listButtons->addWidget(m_remove);
    auto* left = new QVBoxLayout;
    left->addWidget(m_list, 1);
    left->addLayout(listButtons);
    auto* top = new QHBoxLayout;
    top->addLayout(left, 1);
    top->addLayout(right, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_load);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_unload);
    buttons->addStretch(1);
    buttons->addWidget(m_close);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top, 1);
    layout->addLayout(buttons);

    connect(m_list, &QListWidget::currentRowChanged, this, [this] {
        updateDetails();
        updateButtons();
    });
    connect(m_add, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(
            this, tr("Choose a checkpoint folder (config.json, tokenizer.json, safetensors)"));
        if (folder.isEmpty())
            return;
        QString error;
        if (!addFolder(folder, &error))
            m_state->setText(error);
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const QListWidgetItem* item = m_list->currentItem();
        if (!item)
            return;
        m_added.removeAll(item->data(Qt::UserRole).toString());
        QSettings().setValue(QLatin1String(kAddedKey), m_added);
        refreshList();
    });
    connect(m_load, &QPushButton::clicked, this, &ModelManager::loadSelected);
    connect(m_cancel, &QPushButton::clicked, m_runner, &ModelRunner::cancelLoad);
    connect(m_unload, &QPushButton::clicked, m_runner, &ModelRunner::unload);
    connect(m_close, &QPushButton::clicked, this, &QDialog::accept);
    connect(m_runner, &ModelRunner::loadProgress, this, [this](int percent, const QString& tensor) {
        m_progress->setValue(percent);
        m_state->setText(tr("Loading %1").arg(tensor));
    });
    connect(m_runner, &ModelRunner::loaded, this, [this] {
        const ModelSummary& s = m_runner->summary();
        m_progress->setValue(100);
        m_state->setText(tr("Loaded %1 in %2 s.")
                             .arg(QString::fromStdString(s.name))
                             .arg(s.loadMilliseconds / 1000.0, 0, 'f', 1));
        updateButtons();
    });
    connect(m_runner, &ModelRunner::loadFailed, this, [this](const QString& message) {
        m_progress->setValue(0);
        m_state->setText(tr("Not loaded: %1").arg(message));
        updateButtons();
    });
    connect(m_runner, &ModelRunner::unloaded, this, [this] {
        m_progress->setValue(0);
        m_state->setText(tr("No model is loaded."));
        updateButtons();
    });
    connect(m_device, &QComboBox::currentIndexChanged, this, [this] {
        // bf16 matrix products are slow on most CPUs; fp32 is the CPU default.
        m_dtype->setCurrentIndex(m_device->currentIndex() == 1 ? 1 : 0);
        m_threads->setEnabled(m_device->currentIndex() == 0);
    });

    retranslate();
    refreshList();
    resize(820, 480);
}

void ModelManager::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QDialog::changeEvent(event);
}

void ModelManager::retranslate() {
    setWindowTitle(tr("Models"));
    m_deviceLabel->setText(tr("Device"));
    m_dtypeLabel->setText(tr("Precision"));
    m_threadsLabel->setText(tr("CPU threads (0: automatic)"));
    const int device = m_device->currentIndex();
    m_device->clear();
    m_device->addItem(tr("CPU"));
    const bool cuda = torchcuda::builtWithCuda() && torchcuda::available();
    m_device->addItem(cuda ? tr("CUDA GPU") : tr("CUDA GPU (not available)"));
    if (auto* items = qobject_cast<QStandardItemModel*>(m_device->model()); items && !cuda)
        items->item(1)->setEnabled(false);
    m_device->setCurrentIndex(device < 0 ? 0 : device);
    const int dtype = m_dtype->currentIndex();
    m_dtype->clear();
    m_dtype->addItems({tr("fp32"), tr("bf16"), tr("fp16")});
    m_dtype->setCurrentIndex(dtype < 0 ? 0 : dtype);
    m_add->setText(tr("Add folder…"));
    m_remove->setText(tr("Remove from list"));
    m_load->setText(tr("Load"));
    m_cancel->setText(tr("Cancel loading"));
    m_unload->setText(tr("Unload"));
    m_close->setText(tr("Close"));
    if (m_state->text().isEmpty())
        m_state->setText(
            m_runner->isLoaded()
                ? tr("Loaded: %1").arg(QString::fromStdString(m_runner->summary().name))
                : tr("No model is loaded."));
    updateDetails();
    updateButtons();
}

QStringList ModelManager::knownFolders() const {
    QStringList folders;
    const QDir embedded(embeddedModelsDirectory());
    for (const QString& name : embedded.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString folder = embedded.filePath(name);
        if (isModelFolder(folder))
            folders << QDir::cleanPath(folder);
    }
    for (const QString& folder : m_added)
        if (!folders.contains(folder))
            folders << folder;
    return folders;
}

void ModelManager::refreshList() {
    const QString current =
        m_list->currentItem() ? m_list->currentItem()->data(Qt::UserRole).toString() : QString();
    m_list->clear();
    const QString embedded = QDir::cleanPath(embeddedModelsDirectory());
    for (const QString& folder : knownFolders()) {
        const bool builtIn = folder.startsWith(embedded);
        auto* item = new QListWidgetItem(
            builtIn ? tr("%1 (embedded)").arg(QFileInfo(folder).fileName()) : folder, m_list);
        item->setData(Qt::UserRole, folder);
        item->setToolTip(folder);
        if (folder == current)
            m_list->setCurrentItem(item);
    }
    if (!m_list->currentItem() && m_list->count() > 0)
        m_list->setCurrentRow(0);
    updateDetails();
    updateButtons();
}

bool ModelManager::addFolder(const QString& folder, QString* error) {
    const QString clean = QDir::cleanPath(QFileInfo(folder).absoluteFilePath());
    if (!isModelFolder(clean)) {
        if (error)
            *error = tr("%1 has no config.json, so it is not a checkpoint folder.").arg(clean);
        return false;
    }
    try {
        loadModelConfig(QDir(clean).filePath(QStringLiteral("config.json")).toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    if (!m_added.contains(clean)) {
        m_added << clean;
        QSettings().setValue(QLatin1String(kAddedKey), m_added);
    }
    refreshList();
    selectFolder(clean);
    return true;
}

void ModelManager::selectFolder(const QString& folder) {
    const QString clean = QDir::cleanPath(folder);
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->data(Qt::UserRole).toString() == clean)
            m_list->setCurrentRow(i);
}

QString ModelManager::describeFolder(const QString& folder) {
    const QDir dir(folder);
    ModelConfig config;
    try {
        config = loadModelConfig(dir.filePath(QStringLiteral("config.json")).toStdString());
    } catch (const std::exception& e) {
        return tr("This folder cannot be used: %1").arg(QString::fromStdString(e.what()));
    }
    qint64 bytes = 0;
    int shards = 0;
    for (const QFileInfo& file :
         dir.entryInfoList({QStringLiteral("*.safetensors")}, QDir::Files)) {
        bytes += file.size();
        ++shards;
    }
    const QLocale locale;
    QStringList lines;
    lines << tr("Architecture: %1").arg(QString::fromStdString(config.modelType));
    lines
        << tr("Parameters: %1").arg(locale.toString(static_cast<qint64>(config.parameterCount())));
    lines << tr("Layers: %1, hidden size %2, intermediate size %3")
                 .arg(config.numLayers)
                 .arg(config.hiddenSize)
                 .arg(config.intermediateSize);
    lines << tr("Attention heads: %1 (key/value heads %2, head size %3)")
                 .arg(config.numHeads)
                 .arg(config.numKvHeads)
                 .arg(config.headDim);
    lines << tr("Vocabulary: %1, positions: %2")
                 .arg(config.vocabSize)
                 .arg(config.maxPositionEmbeddings);
    lines << tr("Block size: %1, mask token: %2")
                 .arg(config.blockSize)
                 .arg(config.maskTokenId ? QString::number(*config.maskTokenId)
                                         : tr("from the "
                                              "tokenizer"));
    lines << tr("Stored as %1 in %2 safetensors file(s), %3")
                 .arg(QString::fromStdString(config.torchDtype))
                 .arg(shards)
                 .arg(locale.formattedDataSize(bytes));
    const auto params = static_cast<qint64>(config.parameterCount());
    lines << tr("Memory for the weights: %1 in fp32 (CPU), %2 in bf16 or fp16 (GPU)")
                 .arg(locale.formattedDataSize(params * 4), locale.formattedDataSize(params * 2));
    lines << tr("Key/value cache: %1 per 1,000 tokens in fp32, %2 in bf16")
                 .arg(locale.formattedDataSize(static_cast<qint64>(config.kvBytesPerToken(4)) *
                                               1000),
                      locale.formattedDataSize(static_cast<qint64>(config.kvBytesPerToken(2)) *
                                               1000));
    if (!QFileInfo::exists(dir.filePath(QStringLiteral("tokenizer.json"))))
        lines << tr("Missing: tokenizer.json");
    return lines.join(QLatin1Char('\n'));
}

QString ModelManager::description() const {
    const QListWidgetItem* item = m_list->currentItem();
    return item ? describeFolder(item->data(Qt::UserRole).toString()) : QString();
}

void ModelManager::updateDetails() {
    const QString text = description();
    m_details->setText(text.isEmpty() ? tr("Add a checkpoint folder in the Hugging Face format "
                                           "(SDAR, TraDo or Qwen3: config.json, tokenizer.json, "
                                           "model.safetensors or a sharded index).")
                                      : text);
}

void ModelManager::updateButtons() {
    const bool selected = m_list->currentItem() != nullptr;
    const bool loading = m_runner->isLoading();
    m_load->setEnabled(selected && !loading);
    m_cancel->setEnabled(loading);
    m_unload->setEnabled(m_runner->isLoaded() && !loading);
    const QListWidgetItem* item = m_list->currentItem();
    m_remove->setEnabled(item && m_added.contains(item->data(Qt::UserRole).toString()));
}

void ModelManager::loadSelected() {
    const QListWidgetItem* item = m_list->currentItem();
    if (!item || m_runner->isLoading())
        return;
    ModelPlacement placement;
    placement.device = m_device->currentIndex() == 1 ? ModelDevice::Cuda : ModelDevice::Cpu;
    placement.dtype = m_dtype->currentIndex() == 1   ? ModelDType::BFloat16
                      : m_dtype->currentIndex() == 2 ? ModelDType::Float16
                                                     : ModelDType::Float32;
    m_progress->setValue(0);
    m_state->setText(tr("Loading…"));
    m_runner->load(item->data(Qt::UserRole).toString(), placement, m_threads->value());
    updateButtons();
}

} // namespace dice
